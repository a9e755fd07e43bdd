{{/*
Kafka's TLS and SASL settings: the KAFKA_TLS* and KAFKA_SASL* variables of the bridge, and the
Secrets they read mounted as files. Every secret comes from a Secret managed outside the chart
(kafka.tls.*.secretName, kafka.sasl.password.secretName); the chart never holds its content.
*/}}

{{- define "signing-bridge.kafkaMountDir" -}}
/etc/signing-bridge/kafka
{{- end }}

{{/* Refuses settings that would be silently ignored. */}}
{{- define "signing-bridge.kafkaChecks" -}}
{{- $tls := .Values.kafka.tls }}
{{- if and (not $tls.enabled) (or $tls.ca.secretName $tls.clientCert.secretName) }}
{{- fail "kafka.tls.ca or kafka.tls.clientCert names a Secret but kafka.tls.enabled is false" }}
{{- end }}
{{- $sasl := .Values.kafka.sasl }}
{{- if and (eq $sasl.mechanism "none") (or $sasl.username $sasl.password.secretName) }}
{{- fail "kafka.sasl.username or kafka.sasl.password is set but kafka.sasl.mechanism is none" }}
{{- end }}
{{- end }}

{{- define "signing-bridge.kafkaEnv" -}}
{{- $dir := include "signing-bridge.kafkaMountDir" . }}
{{- $tls := .Values.kafka.tls }}
{{- if $tls.enabled }}
- name: KAFKA_TLS
  value: "true"
{{- with $tls.ca.secretName }}
- name: KAFKA_TLS_CA_FILE
  value: {{ printf "%s/ca/%s" $dir $tls.ca.key | quote }}
{{- end }}
{{- with $tls.clientCert.secretName }}
- name: KAFKA_TLS_CERT_FILE
  value: {{ printf "%s/client/%s" $dir $tls.clientCert.certKey | quote }}
- name: KAFKA_TLS_KEY_FILE
  value: {{ printf "%s/client/%s" $dir $tls.clientCert.keyKey | quote }}
{{- with $tls.clientCert.passwordKey }}
- name: KAFKA_TLS_KEY_PASSWORD_FILE
  value: {{ printf "%s/client/%s" $dir . | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- $sasl := .Values.kafka.sasl }}
{{- if ne $sasl.mechanism "none" }}
- name: KAFKA_SASL_MECHANISM
  value: {{ $sasl.mechanism | quote }}
- name: KAFKA_SASL_USERNAME
  value: {{ $sasl.username | quote }}
- name: KAFKA_SASL_PASSWORD_FILE
  value: {{ printf "%s/sasl/%s" $dir $sasl.password.key | quote }}
{{- end }}
{{- end }}

{{/* One read-only volume per Secret, holding only the keys the bridge reads. */}}
{{- define "signing-bridge.kafkaVolumes" -}}
{{- $tls := .Values.kafka.tls }}
{{- if and $tls.enabled $tls.ca.secretName }}
- name: kafka-ca
  secret:
    secretName: {{ $tls.ca.secretName }}
    items:
      - key: {{ $tls.ca.key }}
        path: {{ $tls.ca.key }}
{{- end }}
{{- if and $tls.enabled $tls.clientCert.secretName }}
- name: kafka-client
  secret:
    secretName: {{ $tls.clientCert.secretName }}
    items:
      {{- range compact (list $tls.clientCert.certKey $tls.clientCert.keyKey $tls.clientCert.passwordKey) }}
      - key: {{ . }}
        path: {{ . }}
      {{- end }}
{{- end }}
{{- if ne .Values.kafka.sasl.mechanism "none" }}
- name: kafka-sasl
  secret:
    secretName: {{ .Values.kafka.sasl.password.secretName }}
    items:
      - key: {{ .Values.kafka.sasl.password.key }}
        path: {{ .Values.kafka.sasl.password.key }}
{{- end }}
{{- end }}

{{- define "signing-bridge.kafkaVolumeMounts" -}}
{{- $dir := include "signing-bridge.kafkaMountDir" . }}
{{- range (include "signing-bridge.kafkaVolumes" . | fromYamlArray) }}
- name: {{ .name }}
  mountPath: {{ printf "%s/%s" $dir (trimPrefix "kafka-" .name) }}
  readOnly: true
{{- end }}
{{- end }}
