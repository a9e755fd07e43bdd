// The chart's optional parts, rendered by helm: Kafka's TLS and SASL secrets as files named by
// the KAFKA_TLS* / KAFKA_SASL* variables, the OTLP headers' Secret, the alert rules (checked again by promtool as
// rendered) and the Grafana dashboard.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { goTool } from '../support/tools.js';
import {
  container,
  envOf,
  FULL,
  type Manifest,
  MINIMAL,
  one,
  podSpec,
  render,
  renderError,
  repoRoot,
} from './support/chart.js';

const bridge = 'sb-signing-bridge';
const read = (path: string) => readFileSync(`${repoRoot}${path}`, 'utf8');

let full: Manifest[];
let minimal: Manifest[];

beforeAll(() => {
  full = render([FULL]);
  minimal = render([MINIMAL]);
});

/** Where a file the bridge is told to read comes from: the Secret and key mounted there. */
function fileSource(deployment: Manifest, path: string): { secret: string; key: string } {
  const pod = podSpec(deployment);
  for (const mount of container(deployment).volumeMounts) {
    if (!path.startsWith(`${mount.mountPath}/`)) continue;
    const secret = pod.volumes.find((v) => v.name === mount.name)?.secret;
    const item = secret?.items.find((i) => `${mount.mountPath}/${i.path}` === path);
    if (secret && item && mount.readOnly) return { secret: secret.secretName, key: item.key };
  }
  throw new Error(`no read-only Secret volume holds ${path}`);
}

describe('Kafka TLS and SASL in the chart', () => {
  it('when they are off, then the bridge gets no KAFKA_TLS* or KAFKA_SASL* variable and no Secret volume', () => {
    const deployment = one(minimal, 'Deployment', bridge);
    const names = [...envOf(container(deployment)).keys()];
    expect(names.filter((n) => /^KAFKA_(TLS|SASL)/.test(n))).toEqual([]);
    expect(podSpec(deployment).volumes.map((v) => v.name)).toEqual(['tmp']);
  });

  it('when all are on, then each secret is a file from the existing Secret and key the values name', () => {
    const deployment = one(full, 'Deployment', bridge);
    const env = envOf(container(deployment));
    const value = (name: string) => env.get(name)?.value ?? '';
    expect(value('KAFKA_TLS')).toBe('true');
    expect(value('KAFKA_SASL_MECHANISM')).toBe('scram-sha-512');
    expect(value('KAFKA_SASL_USERNAME')).toBe('signing-bridge');
    const files = Object.fromEntries(
      [
        'KAFKA_TLS_CA_FILE',
        'KAFKA_TLS_CERT_FILE',
        'KAFKA_TLS_KEY_FILE',
        'KAFKA_TLS_KEY_PASSWORD_FILE',
        'KAFKA_SASL_PASSWORD_FILE',
      ].map((name) => [name, fileSource(deployment, value(name))]),
    );
    expect(files).toEqual({
      KAFKA_TLS_CA_FILE: { secret: 'kafka-cluster-ca', key: 'ca.crt' },
      KAFKA_TLS_CERT_FILE: { secret: 'signing-bridge-kafka-user', key: 'user.crt' },
      KAFKA_TLS_KEY_FILE: { secret: 'signing-bridge-kafka-user', key: 'user.key' },
      KAFKA_TLS_KEY_PASSWORD_FILE: { secret: 'signing-bridge-kafka-user', key: 'user.password' },
      KAFKA_SASL_PASSWORD_FILE: { secret: 'signing-bridge-kafka-sasl', key: 'password' },
    });
    // Secrets reach the pod as files only: no Kafka secret in an env value or secretKeyRef.
    const kafkaSecretRefs = container(deployment).env.filter(
      (e) => e.name.startsWith('KAFKA_') && e.valueFrom,
    );
    expect(kafkaSecretRefs).toEqual([]);
  });

  it('when TLS is on without a CA or client certificate, then the system CAs verify the brokers', () => {
    const manifests = render([MINIMAL], ['--set', 'kafka.tls.enabled=true']);
    const env = envOf(container(one(manifests, 'Deployment', bridge)));
    expect(env.get('KAFKA_TLS')?.value).toBe('true');
    expect([...env.keys()].filter((n) => n.startsWith('KAFKA_TLS_'))).toEqual([]);
  });

  it('when a Secret is named but TLS or SASL is off, then rendering fails saying so', () => {
    expect(renderError([MINIMAL], ['--set', 'kafka.tls.ca.secretName=ca'])).toContain(
      'kafka.tls.ca or kafka.tls.clientCert names a Secret but kafka.tls.enabled is false',
    );
    expect(renderError([MINIMAL], ['--set', 'kafka.sasl.username=bridge'])).toContain(
      'kafka.sasl.username or kafka.sasl.password is set but kafka.sasl.mechanism is none',
    );
  });

  it('when SASL has a mechanism but no username or password Secret, then the schema names them', () => {
    const error = renderError([MINIMAL], ['--set', 'kafka.sasl.mechanism=scram-sha-256']);
    expect(error).toContain("'/kafka/sasl/username'");
    expect(error).toContain("'/kafka/sasl/password/secretName'");
    expect(renderError([MINIMAL], ['--set', 'kafka.sasl.mechanism=gssapi'])).toContain(
      "'/kafka/sasl/mechanism'",
    );
  });
});

describe('tracing in the chart', () => {
  it('when the OTLP headers Secret is named, then OTEL_EXPORTER_OTLP_HEADERS comes from its key and the endpoint from config; otherwise there are none', () => {
    const env = envOf(container(one(full, 'Deployment', bridge)));
    expect(env.get('OTEL_EXPORTER_OTLP_HEADERS')?.valueFrom).toEqual({
      secretKeyRef: { name: 'signing-bridge-otlp', key: 'headers' },
    });
    expect(env.get('OTEL_EXPORTER_OTLP_ENDPOINT')?.value).toBe(
      'http://otel-collector.observability:4318',
    );
    const names = [...envOf(container(one(minimal, 'Deployment', bridge))).keys()];
    expect(names.filter((name) => name.startsWith('OTEL_'))).toEqual([]);
  });
});

describe('alert rules and dashboard in the chart', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'signing-bridge-rule-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('when off, then the chart makes neither', () => {
    expect(minimal.filter((m) => m.kind === 'PrometheusRule' || m.kind === 'ConfigMap')).toEqual(
      [],
    );
  });

  it('when prometheusRule is on, then the PrometheusRule holds the rules file, with the extra labels', () => {
    const rule = one(full, 'PrometheusRule', bridge) as Manifest & { spec: { groups: unknown } };
    expect(rule.metadata.labels.release).toBe('kube-prometheus-stack');
    const file = parse(read('helm/signing-bridge/files/prometheus-rules.yaml')) as {
      groups: unknown;
    };
    expect(rule.spec.groups).toEqual(file.groups);
    // As rendered, still rules Prometheus accepts.
    const rendered = join(scratch, 'rendered-rules.yaml');
    writeFileSync(rendered, stringify(rule.spec));
    const checked = spawnSync(goTool('promtool'), ['check', 'rules', rendered], {
      encoding: 'utf8',
    });
    const rules = (file.groups as Array<{ rules: unknown[] }>).flatMap((group) => group.rules);
    expect(rules.length).toBeGreaterThan(0);
    expect(checked.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(checked.status).toBe(0);
  });

  it("when dashboard is on, then a ConfigMap with Grafana's sidecar label holds the dashboard", () => {
    const map = one(full, 'ConfigMap', `${bridge}-dashboard`);
    expect(map.metadata.labels.grafana_dashboard).toBe('1');
    const json = map.data?.['signing-bridge.json'] ?? '';
    expect(JSON.parse(json)).toEqual(
      JSON.parse(read('helm/signing-bridge/files/grafana-dashboard.json')),
    );
  });
});
