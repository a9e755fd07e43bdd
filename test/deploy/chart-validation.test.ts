// The chart's manifests, rendered with every optional value off, each one on by itself, and all
// on, validated offline against the Kubernetes JSON schemas of 1.27 to 1.33 (strict: no
// unknown field) by kubernetes-validate, and the custom resources against the Prometheus
// Operator's CRD schemas.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  PrometheusRule,
  ServiceMonitor,
} from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { pythonTool } from '../support/tools.js';
import { FULL, isBuiltIn, type Manifest, MINIMAL, one, render } from './support/chart.js';
import { CONSOLE_BEHIND_PROXY, CONSOLE_WITH_TOKENS } from './support/console-values.js';

const KUBERNETES_VERSIONS = ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'];

/** Each optional value turned on by itself, over the minimal values (where all are off). */
const OPTIONS: Record<string, string[]> = {
  simulator: ['--set', 'simulator.enabled=true'],
  'console with tokens': CONSOLE_WITH_TOKENS,
  'console behind an authenticating proxy': CONSOLE_BEHIND_PROXY,
  serviceMonitor: ['--set', 'serviceMonitor.enabled=true'],
  prometheusRule: ['--set', 'prometheusRule.enabled=true'],
  dashboard: ['--set', 'dashboard.enabled=true'],
  existingSecret: ['--set', 'credentials.existingSecret=signing-credentials'],
  'kafka TLS with the system CAs': ['--set', 'kafka.tls.enabled=true'],
  'kafka TLS with a CA': ['--set', 'kafka.tls.enabled=true', '--set', 'kafka.tls.ca.secretName=ca'],
  'kafka TLS with a client certificate': [
    ...['--set', 'kafka.tls.enabled=true', '--set', 'kafka.tls.clientCert.secretName=user'],
  ],
  'kafka SASL': [
    ...['--set', 'kafka.sasl.mechanism=plain', '--set', 'kafka.sasl.username=bridge'],
    ...['--set', 'kafka.sasl.password.secretName=sasl'],
  ],
  'tracing headers': ['--set', 'tracing.otlpHeaders.secretName=otlp'],
  nodeOptions: ['--set', 'nodeOptions=--max-old-space-size=400'],
  imagePullSecrets: ['--set', 'imagePullSecrets[0].name=registry'],
  nodeSelector: ['--set', 'nodeSelector.kubernetes\\.io/os=linux'],
  tolerations: ['--set', 'tolerations[0].key=dedicated', '--set', 'tolerations[0].operator=Exists'],
  affinity: ['key=kubernetes.io/arch', 'operator=In', 'values[0]=amd64'].flatMap((term) => [
    '--set',
    `affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].${term}`,
  ]),
};

const kubernetesValidate = pythonTool('kubernetes-validate');
const scratch = mkdtempSync(join(tmpdir(), 'signing-bridge-chart-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Validates manifests against one Kubernetes version; the per-resource lines it prints. */
function validate(version: string, manifests: Manifest[], file: string) {
  const path = join(scratch, file);
  writeFileSync(path, manifests.map((m) => stringify(m)).join('---\n'));
  const result = spawnSync(
    kubernetesValidate,
    ['--strict', '--kubernetes-version', `${version}.0`, path],
    { encoding: 'utf8' },
  );
  return { status: result.status, output: result.stdout + result.stderr };
}

describe('the chart, rendered with every optional value off and on', () => {
  const renders = new Map<string, Manifest[]>();

  beforeAll(() => {
    renders.set('all off', render([MINIMAL]));
    renders.set('all on', render([FULL]));
    for (const [name, args] of Object.entries(OPTIONS)) renders.set(name, render([MINIMAL], args));
  });

  it('when each optional value is on, then the manifests differ from all off', () => {
    const off = JSON.stringify(renders.get('all off'));
    for (const name of Object.keys(OPTIONS)) {
      expect(JSON.stringify(renders.get(name)), name).not.toBe(off);
    }
  });

  it.each(KUBERNETES_VERSIONS)(
    'when validated against the Kubernetes %s schemas, strictly, then every built-in object passes',
    (version) => {
      const manifests = [...renders.values()].flat().filter(isBuiltIn);
      const { status, output } = validate(version, manifests, `all-${version}.yaml`);
      expect(output).not.toContain('ERROR');
      expect(status, output).toBe(0);
      expect(output.match(/ passed for resource /g)?.length).toBe(manifests.length);
    },
  );

  it('when a manifest has a field Kubernetes does not know, then the validator refuses it', () => {
    const deployment = structuredClone(
      one(renders.get('all off') ?? [], 'Deployment', 'sb-signing-bridge'),
    );
    Object.assign(deployment.spec.template?.spec.containers[0] ?? {}, { bogus: 1 });
    const { status, output } = validate('1.27', [deployment], 'bogus.yaml');
    expect(output).toContain("'bogus' was unexpected");
    expect(status).not.toBe(0);
  });

  it('when the custom resources are checked against the Prometheus Operator CRD schemas, then they pass', () => {
    const custom = [...renders.values()].flat().filter((m) => !isBuiltIn(m));
    expect(new Set(custom.map((m) => m.kind))).toEqual(
      new Set(['ServiceMonitor', 'PrometheusRule']),
    );
    for (const m of custom) {
      const model =
        m.kind === 'ServiceMonitor'
          ? new ServiceMonitor(m as never)
          : new PrometheusRule(m as never);
      expect(() => model.validate(), `${m.kind}/${m.metadata.name}`).not.toThrow();
    }
    const broken = structuredClone(
      one(renders.get('all on') ?? [], 'ServiceMonitor', 'sb-signing-bridge'),
    );
    Object.assign(broken.spec.endpoints?.[0] ?? {}, { interval: 'every minute' });
    expect(() => new ServiceMonitor(broken as never).validate()).toThrow(/interval/);
  });
});
