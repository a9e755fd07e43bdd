// The Helm chart, linted and rendered by the real helm, its manifests parsed and checked.
// helm is the pinned plain build that scripts/tools/install-go-tool.sh makes.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONFIG } from '../../src/config/index.js';
import {
  chartDir,
  container,
  DEV,
  envOf,
  FULL,
  helm,
  type Manifest,
  MINIMAL,
  one,
  podSpec,
  RELEASE,
  render,
  renderError,
  repoRoot,
  runHelm,
  selectorOf,
  selects,
} from './support/chart.js';

describe('helm chart', () => {
  const bridge = `${RELEASE}-signing-bridge`;
  const simulator = `${bridge}-simulator`;
  let minimal: Manifest[];
  let dev: Manifest[];

  beforeAll(() => {
    minimal = render([MINIMAL]);
    dev = render([DEV]);
  });

  it('when linted strictly with the minimal, the dev and the full values, then helm reports no problem', () => {
    for (const file of [MINIMAL, DEV, FULL]) {
      const { status, stdout, stderr } = runHelm(['lint', '--strict', chartDir, '-f', file]);
      expect(status, `${stdout}${stderr}`).toBe(0);
    }
  });

  it('when a required value is missing, then the schema names it', () => {
    const error = renderError([]);
    expect(error).toContain("'/config/KAFKA_BROKERS'");
    expect(error).toContain("'/config/SIGNING_API_BASE_URL'");
    expect(error).toContain("'/credentials/appToken'");
    expect(error).toContain("'/credentials/appSecret'");
  });

  it('when a config value is a number, then the schema asks for a string', () => {
    expect(renderError([MINIMAL], ['--set', 'config.SIGNING_RPS=5'])).toContain('want string');
    expect(renderError([MINIMAL], ['--set-string', 'config.SIGNING_RPS=5'])).toBe('');
  });

  it('when config names a variable the service does not know, then the schema names it', () => {
    const error = renderError([MINIMAL], ['--set-string', 'config.SIGNING_RPS_LIMIT=3']);
    expect(error).toContain("additional properties 'SIGNING_RPS_LIMIT' not allowed");
  });

  it('when config sets a variable the chart owns, then the schema rejects it', () => {
    for (const name of ['HTTP_PORT', 'SIGNING_APP_TOKEN', 'SIGNING_APP_SECRET']) {
      expect(renderError([MINIMAL], ['--set-string', `config.${name}=x`]), name).not.toBe('');
    }
  });

  it('when SHUTDOWN_DEADLINE_MS leaves less than 5 s of the grace period, then rendering fails', () => {
    expect(renderError([MINIMAL], ['--set-string', 'config.SHUTDOWN_DEADLINE_MS=25000'])).toBe('');
    expect(renderError([MINIMAL], ['--set-string', 'config.SHUTDOWN_DEADLINE_MS=25001'])).toContain(
      'terminationGracePeriodSeconds (30 s) must exceed config.SHUTDOWN_DEADLINE_MS',
    );
  });

  it('when rendered with the minimal values, then it makes exactly the bridge objects', () => {
    const kinds = minimal.map((m) => `${m.kind}/${m.metadata.name}`).sort();
    expect(kinds).toEqual([
      `Deployment/${bridge}`,
      `PodDisruptionBudget/${bridge}`,
      `Secret/${bridge}`,
      `Service/${bridge}`,
    ]);
  });

  it('then every object carries the recommended labels', () => {
    const { version } = JSON.parse(readFileSync(`${repoRoot}package.json`, 'utf8')) as {
      version: string;
    };
    for (const m of [...minimal, ...dev]) {
      expect(m.metadata.labels, `${m.kind}/${m.metadata.name}`).toMatchObject({
        'helm.sh/chart': 'signing-bridge-0.3.0',
        'app.kubernetes.io/name': 'signing-bridge',
        'app.kubernetes.io/instance': RELEASE,
        'app.kubernetes.io/version': version,
        'app.kubernetes.io/managed-by': 'Helm',
      });
    }
  });

  it('then the bridge runs two spread, locked-down replicas of the appVersion image', () => {
    const deployment = one(minimal, 'Deployment', bridge);
    const pod = podSpec(deployment);
    const podLabels = deployment.spec.template?.metadata.labels ?? {};
    expect(deployment.spec.replicas).toBe(2);
    expect(selects(selectorOf(deployment), podLabels)).toBe(true);
    const [preferred] =
      pod.affinity?.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution ?? [];
    expect(preferred?.podAffinityTerm.topologyKey).toBe('kubernetes.io/hostname');
    expect(
      selects(preferred?.podAffinityTerm.labelSelector.matchLabels ?? { none: 'x' }, podLabels),
    ).toBe(true);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.securityContext).toEqual({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const c = container(deployment);
    expect(c.args).toEqual(['run']);
    expect(c.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(c.resources.requests?.memory).toBe('256Mi');
    expect(c.resources.limits?.memory).toBe('512Mi');
  });

  it('then the probes ask /healthz and /readyz on the port HTTP_PORT names', () => {
    const c = container(one(minimal, 'Deployment', bridge));
    expect(c.ports).toEqual([{ name: 'http', containerPort: 8080 }]);
    expect(envOf(c).get('HTTP_PORT')?.value).toBe('8080');
    expect(c.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(c.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
  });

  it('then config becomes env and the credentials come from the chart-made Secret', () => {
    const deployment = one(minimal, 'Deployment', bridge);
    const env = envOf(container(deployment));
    expect(env.get('KAFKA_BROKERS')?.value).toBe('kafka-0.kafka:9092,kafka-1.kafka:9092');
    expect(env.get('SIGNING_API_BASE_URL')?.value).toBe('https://open.signing.example.com');
    for (const key of ['SIGNING_APP_TOKEN', 'SIGNING_APP_SECRET']) {
      expect(env.get(key)?.value).toBeUndefined();
      expect(env.get(key)?.valueFrom?.secretKeyRef).toEqual({ name: bridge, key });
    }
    const secret = one(minimal, 'Secret', bridge);
    const decoded = Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
    );
    expect(decoded).toEqual({
      SIGNING_APP_TOKEN: 'test-app-token',
      SIGNING_APP_SECRET: 'test-app-secret',
    });
    // A credentials change must restart the pods, which read env only at start.
    expect(deployment.spec.template?.metadata.annotations?.['checksum/secret']).toMatch(
      /^[0-9a-f]{64}$/,
    );
  });

  it('then the image keeps its NODE_OPTIONS unless nodeOptions replaces them', () => {
    expect(envOf(container(one(minimal, 'Deployment', bridge))).has('NODE_OPTIONS')).toBe(false);
    const options = '--max-old-space-size=400';
    const raised = render([MINIMAL], ['--set-string', `nodeOptions=${options}`]);
    const env = envOf(container(one(raised, 'Deployment', bridge)));
    expect(env.get('NODE_OPTIONS')?.value).toBe(options);
  });

  it('then the metrics Service and the disruption budget select the bridge pods', () => {
    const podLabels = one(minimal, 'Deployment', bridge).spec.template?.metadata.labels ?? {};
    const service = one(minimal, 'Service', bridge);
    expect(service.spec.ports).toEqual([{ name: 'http', port: 8080, targetPort: 'http' }]);
    expect(selects(selectorOf(service), podLabels)).toBe(true);
    const pdb = one(minimal, 'PodDisruptionBudget', bridge);
    expect(pdb.spec.maxUnavailable).toBe(1);
    expect(pdb.spec.unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
    expect(selects(selectorOf(pdb), podLabels)).toBe(true);
  });

  it('then, with either values, every variable the bridge gets is one of CONFIG', () => {
    const known = new Set(CONFIG.map((variable) => variable.name as string));
    for (const manifests of [minimal, dev]) {
      const names = container(one(manifests, 'Deployment', bridge)).env.map((e) => e.name);
      expect(names.filter((name) => !known.has(name))).toEqual([]);
    }
  });

  it('when rendered with the dev values, then it adds the simulator and the ServiceMonitor, and no Secret', () => {
    const kinds = dev.map((m) => `${m.kind}/${m.metadata.name}`).sort();
    expect(kinds).toEqual([
      `Deployment/${bridge}`,
      `Deployment/${simulator}`,
      `PodDisruptionBudget/${bridge}`,
      `Service/${bridge}`,
      `Service/${simulator}`,
      `ServiceMonitor/${bridge}`,
    ]);
  });

  it('then three bridge replicas read the existing Secret and call the simulator', () => {
    const deployment = one(dev, 'Deployment', bridge);
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.template?.metadata.annotations?.['checksum/secret']).toBeUndefined();
    const env = envOf(container(deployment));
    expect(env.get('SIGNING_API_BASE_URL')?.value).toBe(`http://${simulator}:8080`);
    expect(env.get('SIGNING_APP_TOKEN')?.valueFrom?.secretKeyRef.name).toBe('signing-credentials');
    expect(env.get('SIGNING_APP_SECRET')?.valueFrom?.secretKeyRef.name).toBe('signing-credentials');
  });

  it('then the simulator runs its own image, listens on all interfaces behind its own Service, apart from the bridge', () => {
    const deployment = one(dev, 'Deployment', simulator);
    const podLabels = deployment.spec.template?.metadata.labels ?? {};
    const c = container(deployment);
    // The Dockerfile's `simulator` target; the service's image has no simulator.
    expect(c.image).toBe('signing-bridge-simulator:0.3.0');
    expect(container(one(dev, 'Deployment', bridge)).image).toBe('signing-bridge:0.3.0');
    expect(c.args).toEqual(['simulator', '--host', '0.0.0.0', '--port', '8080']);
    expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
    const service = one(dev, 'Service', simulator);
    expect(service.spec.ports).toEqual([{ name: 'http', port: 8080, targetPort: 'http' }]);
    expect(selects(selectorOf(service), podLabels)).toBe(true);
    // The bridge's Service, budget and anti-affinity must not count simulator pods.
    expect(selects(selectorOf(one(dev, 'Service', bridge)), podLabels)).toBe(false);
  });

  it('then the ServiceMonitor scrapes /metrics through the bridge Service, with the extra labels', () => {
    const monitor = one(dev, 'ServiceMonitor', bridge);
    expect(monitor.metadata.labels.release).toBe('kube-prometheus-stack');
    expect(monitor.spec.endpoints).toEqual([{ port: 'http', path: '/metrics', interval: '30s' }]);
    const service = one(dev, 'Service', bridge);
    expect(selects(selectorOf(monitor), service.metadata.labels)).toBe(true);
  });
});

describe('helm installer', () => {
  it('builds the pinned helm v3 release plainly from its Go module', () => {
    const script = readFileSync(`${repoRoot}scripts/tools/install-go-tool.sh`, 'utf8');
    const version =
      /^ {2}helm\) readonly MODULE=helm\.sh\/helm\/v3 VERSION=(v3\.\d+\.\d+) ;;$/m.exec(
        script,
      )?.[1];
    expect(version).toBeDefined();
    const built = execFileSync('go', ['version', '-m', helm], { encoding: 'utf8' });
    expect(built).toMatch(new RegExp(`\\bmod\\s+helm\\.sh/helm/v3\\s+${version}\\s`));
    // No release flags: helm's own default Kubernetes version stays, and the chart must cope.
    expect(script).not.toContain('k8sVersion');
  });
});
