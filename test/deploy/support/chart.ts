// Rendering the chart with the real helm (the pinned build scripts/tools/install-go-tool.sh
// makes) and reading the manifests it makes, for the chart's tests.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { goTool } from '../../support/tools.js';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const chartDir = `${repoRoot}helm/signing-bridge`;
const valuesFile = (name: string) => fileURLToPath(new URL(`../${name}`, import.meta.url));
export const MINIMAL = valuesFile('values-minimal.yaml');
export const DEV = valuesFile('values-dev.yaml');
export const FULL = valuesFile('values-full.yaml');
export const RELEASE = 'sb';

export interface Container {
  name: string;
  image: string;
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
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface Volume {
  name: string;
  secret?: { secretName: string; items: { key: string; path: string }[] };
}

export interface Manifest {
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
        volumes: Volume[];
      };
    };
  };
  data?: Record<string, string>;
}

/** The manifests that are not custom resources: those Kubernetes' own schemas describe. */
export const isBuiltIn = (m: Manifest) => !m.apiVersion.startsWith('monitoring.coreos.com/');

export const helm = goTool('helm');

export function runHelm(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(helm, args, { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export function render(files: string[], extra: string[] = []): Manifest[] {
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
export function renderError(files: string[], extra: string[] = []): string {
  const { status, stderr } = runHelm([
    'template',
    RELEASE,
    chartDir,
    ...files.flatMap((f) => ['-f', f]),
    ...extra,
  ]);
  return status === 0 ? '' : stderr;
}

export function one(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.filter((m) => m.kind === kind && m.metadata.name === name);
  expect(found, `${kind}/${name}`).toHaveLength(1);
  return found[0] as Manifest;
}

export function podSpec(deployment: Manifest) {
  const template = deployment.spec.template;
  if (!template) throw new Error(`${deployment.metadata.name} has no pod template`);
  return template.spec;
}

export function container(deployment: Manifest): Container {
  const containers = podSpec(deployment).containers;
  expect(containers).toHaveLength(1);
  return containers[0] as Container;
}

export function envOf(c: Container): Map<string, Container['env'][number]> {
  const names = c.env.map((e) => e.name);
  expect(new Set(names).size, `duplicate env in ${names.join(', ')}`).toBe(names.length);
  return new Map(c.env.map((e) => [e.name, e]));
}

/** A Service selects by plain labels; workloads, budgets and ServiceMonitors by matchLabels. */
export function selectorOf(m: Manifest): Record<string, string> {
  const selector = m.spec.selector ?? {};
  return (selector.matchLabels ?? selector) as Record<string, string>;
}

/** True when a selector's labels all appear, with the same values, among the pod's labels. */
export function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}
