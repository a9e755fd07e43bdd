{{/* The chart's name, overridable; 63 characters at most (DNS label). */}}
{{- define "signing-bridge.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object's name: the release name, with the chart's name unless the release
name already contains it. 55 characters at most, so that "-simulator" still fits in 63.
*/}}
{{- define "signing-bridge.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 55 | trimSuffix "-" }}
{{- else }}
{{- $name := include "signing-bridge.name" . }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 55 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 55 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "signing-bridge.simulatorName" -}}
{{- printf "%s-simulator" (include "signing-bridge.fullname" .) }}
{{- end }}

{{- define "signing-bridge.consoleName" -}}
{{- printf "%s-console" (include "signing-bridge.fullname" .) }}
{{- end }}

{{/* The headless Service that lists every bridge pod, ready or not, for the console. */}}
{{- define "signing-bridge.instancesName" -}}
{{- printf "%s-instances" (include "signing-bridge.fullname" .) }}
{{- end }}

{{/* The console's own port, in its pod and on its Service. */}}
{{- define "signing-bridge.consolePort" -}}
8090
{{- end }}

{{/* The Secret with the console's tokens file. */}}
{{- define "signing-bridge.consoleTokensSecret" -}}
{{- .Values.console.tokens.existingSecret | default (printf "%s-tokens" (include "signing-bridge.consoleName" .)) }}
{{- end }}

{{/*
Selector labels of one component ("bridge", "simulator" or "console"); the component keeps the bridge's
Service, PodDisruptionBudget and anti-affinity from matching simulator pods.
Call with (dict "ctx" $ "component" "bridge").
*/}}
{{- define "signing-bridge.selectorLabels" -}}
app.kubernetes.io/name: {{ include "signing-bridge.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Every object's labels (the Helm and Kubernetes recommended set). Same argument as above. */}}
{{- define "signing-bridge.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .ctx.Chart.Name .ctx.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "signing-bridge.selectorLabels" . }}
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
{{- end }}

{{/*
The port of HTTP_PORT in every pod and of both Services. A pod has its own network namespace,
so the port is fixed rather than an option; the chart sets HTTP_PORT to it.
*/}}
{{- define "signing-bridge.httpPort" -}}
8080
{{- end }}

{{- define "signing-bridge.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{/* The simulator's image: the Dockerfile's `simulator` target, tagged like the service's. */}}
{{- define "signing-bridge.simulatorImage" -}}
{{- with .Values.simulator.image }}
{{- printf "%s:%s" .repository (.tag | default $.Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/* The Secret holding SIGNING_APP_TOKEN and SIGNING_APP_SECRET. */}}
{{- define "signing-bridge.secretName" -}}
{{- .Values.credentials.existingSecret | default (include "signing-bridge.fullname" .) }}
{{- end }}

{{/*
The platform's base URL: config.SIGNING_API_BASE_URL, else (the schema allows leaving it out
only then) the in-cluster simulator.
*/}}
{{- define "signing-bridge.apiBaseUrl" -}}
{{- if .Values.config.SIGNING_API_BASE_URL }}
{{- .Values.config.SIGNING_API_BASE_URL }}
{{- else }}
{{- printf "http://%s:%s" (include "signing-bridge.simulatorName" .) (include "signing-bridge.httpPort" .) }}
{{- end }}
{{- end }}

{{/*
Pod and container security contexts, shared by the bridge and the simulator. They meet the
"restricted" Pod Security Standard. No runAsUser: the image's numeric USER (1000) applies, and
platforms that assign their own uid (OpenShift) keep doing so.
*/}}
{{- define "signing-bridge.podSecurityContext" -}}
runAsNonRoot: true
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{- define "signing-bridge.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end }}

{{/* Scheduling settings, shared by both Deployments. */}}
{{- define "signing-bridge.scheduling" -}}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
