// The Helm chart, linted and rendered by the real helm, its manifests parsed and checked.
// Needs helm: one on PATH, or the pinned build that scripts/helm/install-helm.sh makes.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { CONFIG } from '../../src/config/index.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const chartDir = `${repoRoot}helm/signing-bridge`;
const valuesFile = (name: string) => fileURLToPath(new URL(name, import.meta.url));
const MINIMAL = valuesFile('values-minimal.yaml');
const DEV = valuesFile('values-dev.yaml');
const RELEASE = 'sb';

interface Container {
  name: string;
  args: string[];
  ports: { name: string; containerPort: number }[];
  env: {
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef: { name: string; key: string } };
  }[];
  livenessProbe?: { httpGet: { path: string; port: string } };
  readinessProbe?: { httpGet?: { path: string; port: string }; tcpSocket?: { port: string } };
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext: {
    allowPrivilegeEscalation: boolean;
    readOnlyRootFilesystem: boolean;
    capabilities: { drop: string[] };
  };
}

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels: Record<string, string>; annotations?: Record<string, string> };
  // Only what the tests below read; each kind fills its own part.
  spec: {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> } & Record<string, unknown>;
    maxUnavailable?: number;
    unhealthyPodEvictionPolicy?: string;
    ports?: { name: string; port: number; targetPort: string }[];
    endpoints?: { port: string; path: string }[];
    template?: {
      metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
      spec: {
        automountServiceAccountToken: boolean;
        terminationGracePeriodSeconds?: number;
        securityContext: { runAsNonRoot: boolean; seccompProfile: { type: string } };
        affinity?: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: {
              podAffinityTerm: {
                topologyKey: string;
                labelSelector: { matchLabels: Record<string, string> };
              };
            }[];
          };
        };
        containers: Container[];
      };
    };
  };
  data?: Record<string, string>;
}

/**
 * Helm on PATH, or the pinned one the project builds into .tools/bin (a few minutes the first
 * time, through the Go module proxy): `npm test` needs nothing installed by hand.
 */
function findHelm(): string {
  if (spawnSync('helm', ['version', '--short']).status === 0) return 'helm';
  const installed = spawnSync('bash', [`${repoRoot}scripts/helm/install-helm.sh`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (installed.status !== 0)
    throw new Error('scripts/helm/install-helm.sh could not install helm');
  return installed.stdout.trim();
}

const helm = findHelm();

function runHelm(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(helm, args, { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function render(files: string[], extra: string[] = []): Manifest[] {
  const args = [
    'template',
    RELEASE,
    chartDir,
    '--namespace',
    'signing',
    ...files.flatMap((f) => ['-f', f]),
    ...extra,
  ];
  const { status, stdout, stderr } = runHelm(args);
  if (status !== 0) throw new Error(`helm template failed:\n${stderr}`);
  return parseAllDocuments(stdout)
    .map((doc) => doc.toJSON() as Manifest | null)
    .filter((doc): doc is Manifest => doc !== null);
}

/** The error helm gives for these values, or '' when it renders them. */
function renderError(files: string[], extra: string[] = []): string {
  const { status, stderr } = runHelm([
    'template',
    RELEASE,
    chartDir,
    ...files.flatMap((f) => ['-f', f]),
    ...extra,
  ]);
  return status === 0 ? '' : stderr;
}

function one(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.filter((m) => m.kind === kind && m.metadata.name === name);
  expect(found, `${kind}/${name}`).toHaveLength(1);
  return found[0] as Manifest;
}

function podSpec(deployment: Manifest) {
  const template = deployment.spec.template;
  if (!template) throw new Error(`${deployment.metadata.name} has no pod template`);
  return template.spec;
}

function container(deployment: Manifest): Container {
  const containers = podSpec(deployment).containers;
  expect(containers).toHaveLength(1);
  return containers[0] as Container;
}

function envOf(c: Container): Map<string, Container['env'][number]> {
  const names = c.env.map((e) => e.name);
  expect(new Set(names).size, `duplicate env in ${names.join(', ')}`).toBe(names.length);
  return new Map(c.env.map((e) => [e.name, e]));
}

/** A Service selects by plain labels; workloads, budgets and ServiceMonitors by matchLabels. */
function selectorOf(m: Manifest): Record<string, string> {
  const selector = m.spec.selector ?? {};
  return (selector.matchLabels ?? selector) as Record<string, string>;
}

/** True when a selector's labels all appear, with the same values, among the pod's labels. */
function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

describe('helm chart', () => {
  const bridge = `${RELEASE}-signing-bridge`;
  const simulator = `${bridge}-simulator`;
  let minimal: Manifest[];
  let dev: Manifest[];

  beforeAll(() => {
    minimal = render([MINIMAL]);
    dev = render([DEV]);
  });

  it('when linted strictly with the minimal and the dev values, then helm reports no problem', () => {
    for (const file of [MINIMAL, DEV]) {
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
        'helm.sh/chart': 'signing-bridge-0.1.0',
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

  it('then the simulator listens on all interfaces behind its own Service, apart from the bridge', () => {
    const deployment = one(dev, 'Deployment', simulator);
    const podLabels = deployment.spec.template?.metadata.labels ?? {};
    const c = container(deployment);
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
  it('pins one helm v3 release', () => {
    const script = readFileSync(`${repoRoot}scripts/helm/install-helm.sh`, 'utf8');
    expect(script).toMatch(/^readonly HELM_VERSION=v3\.\d+\.\d+$/m);
    if (helm?.startsWith(repoRoot)) {
      const version = execFileSync(helm, ['version', '--template', '{{.Version}}'], {
        encoding: 'utf8',
      });
      expect(script).toContain(`HELM_VERSION=${version}\n`);
    }
  });
});
