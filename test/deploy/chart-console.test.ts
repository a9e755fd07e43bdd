// The on-call console in the chart (docs/console.md): off by default; on, a Deployment of the
// service's image running `signing-bridge console`, its Service, the Secret of its tokens (or an
// existing one), the headless Service that lists every bridge pod for its /status; or, behind
// an authenticating proxy, the proxy beside it and the Service sending to the proxy.
import { beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_VARIABLES } from '../../src/config/index.js';
import {
  container,
  envOf,
  FULL,
  type Manifest,
  MINIMAL,
  one,
  podSpec,
  RELEASE,
  render,
  renderError,
  selectorOf,
  selects,
} from './support/chart.js';
import { CONSOLE_BEHIND_PROXY, CONSOLE_WITH_TOKENS, TOKEN } from './support/console-values.js';

const bridge = `${RELEASE}-signing-bridge`;
const consoleName = `${bridge}-console`;
let tokens: Manifest[];
let proxied: Manifest[];
let full: Manifest[];

beforeAll(() => {
  tokens = render([MINIMAL], CONSOLE_WITH_TOKENS);
  proxied = render([MINIMAL], CONSOLE_BEHIND_PROXY);
  full = render([FULL]);
});

const podLabels = (m: Manifest) => m.spec.template?.metadata.labels ?? {};

describe('the console in the chart', () => {
  it('when not enabled, then nothing of it is rendered', () => {
    const names = render([MINIMAL]).map((m) => m.metadata.name);
    expect(names.filter((name) => name.includes('console') || name.includes('instances'))).toEqual(
      [],
    );
  });

  it("when enabled with tokens, then one locked-down replica of the service's image runs `console`, its tokens a file from the chart's Secret", () => {
    const deployment = one(tokens, 'Deployment', consoleName);
    expect(deployment.spec.replicas).toBe(1);
    const c = container(deployment);
    expect(c.image).toBe(container(one(tokens, 'Deployment', bridge)).image);
    expect(c.args).toEqual(['console']);
    expect(c.ports).toEqual([{ name: 'console', containerPort: 8090 }]);
    expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(podSpec(deployment).automountServiceAccountToken).toBe(false);
    expect(c.readinessProbe?.httpGet).toEqual({ path: '/healthz', port: 'console' });
    const env = envOf(c);
    expect(env.get('CONSOLE_AUTH')?.value).toBe('token');
    expect(env.get('CONSOLE_HOST')?.value).toBe('0.0.0.0');
    expect(env.get('CONSOLE_TOKENS_FILE')?.value).toBe('/etc/signing-bridge/console/tokens');
    const volume = podSpec(deployment).volumes.find((v) => v.name === 'console-tokens');
    expect(volume?.secret).toEqual({
      secretName: `${consoleName}-tokens`,
      items: [{ key: 'tokens', path: 'tokens' }],
    });
    const secret = one(tokens, 'Secret', `${consoleName}-tokens`) as Manifest & {
      stringData: Record<string, string>;
    };
    expect(secret.stringData.tokens?.trim().split('\n')).toEqual([
      `operator alice ${TOKEN}`,
      `viewer bob ${TOKEN}bob`,
    ]);
    expect(deployment.spec.template?.metadata.annotations?.['checksum/tokens']).toMatch(
      /^[0-9a-f]{64}$/,
    );
  });

  it("then it reads Kafka as the bridge does, and nothing of the bridge's platform credentials", () => {
    const bridgeEnv = envOf(container(one(full, 'Deployment', bridge)));
    const consoleEnv = envOf(container(one(full, 'Deployment', consoleName)));
    for (const [name, variable] of bridgeEnv) {
      if (/^(KAFKA_|TOPIC)/.test(name)) expect(consoleEnv.get(name), name).toEqual(variable);
    }
    expect(
      [...consoleEnv.keys()].filter((name) => !/^(KAFKA_|TOPIC|CONSOLE_|NODE_OPTIONS$)/.test(name)),
    ).toEqual([]);
    expect(consoleEnv.get('CONSOLE_REPLAY_LIMIT')?.value).toBe('5');
    const consolePod = podSpec(one(full, 'Deployment', consoleName));
    const bridgeVolumes = podSpec(one(full, 'Deployment', bridge)).volumes.filter((v) =>
      v.name.startsWith('kafka-'),
    );
    expect(consolePod.volumes.filter((v) => v.name.startsWith('kafka-'))).toEqual(bridgeVolumes);
    // An existing Secret: none is made, the volume names it.
    expect(full.filter((m) => m.kind === 'Secret')).toEqual([]);
    expect(consolePod.volumes.find((v) => v.name === 'console-tokens')?.secret?.secretName).toBe(
      'signing-console-tokens',
    );
  });

  it("then its Service selects the console only, the bridge's objects never select it, and every bridge pod, ready or not, is listed for /status", () => {
    const consolePods = podLabels(one(tokens, 'Deployment', consoleName));
    const bridgePods = podLabels(one(tokens, 'Deployment', bridge));
    const service = one(tokens, 'Service', consoleName);
    expect(service.spec.ports).toEqual([{ name: 'http', port: 8090, targetPort: 'console' }]);
    expect(selects(selectorOf(service), consolePods)).toBe(true);
    expect(selects(selectorOf(service), bridgePods)).toBe(false);
    for (const [kind, name] of [
      ['Service', bridge],
      ['PodDisruptionBudget', bridge],
    ] as const) {
      expect(selects(selectorOf(one(tokens, kind, name)), consolePods), `${kind}/${name}`).toBe(
        false,
      );
    }
    const instances = one(tokens, 'Service', `${bridge}-instances`) as Manifest & {
      spec: { clusterIP: string; publishNotReadyAddresses: boolean };
    };
    expect(instances.spec.clusterIP).toBe('None');
    expect(instances.spec.publishNotReadyAddresses).toBe(true);
    expect(selects(selectorOf(instances), bridgePods)).toBe(true);
    const env = envOf(container(one(tokens, 'Deployment', consoleName)));
    expect(env.get('CONSOLE_INSTANCES')?.value).toBe(`dns:${bridge}-instances.signing.svc:8080`);
    // The ServiceMonitor selects the bridge's Service by its labels: not the instances' too.
    const monitor = one(full, 'ServiceMonitor', bridge);
    expect(
      selects(selectorOf(monitor), one(full, 'Service', `${bridge}-instances`).metadata.labels),
    ).toBe(false);
  });

  it('when behind an authenticating proxy, then the proxy runs beside it, it listens on 127.0.0.1 only, and its Service sends to the proxy', () => {
    const deployment = one(proxied, 'Deployment', consoleName);
    const names = podSpec(deployment).containers.map((c) => c.name);
    expect(names).toEqual(['console', 'oauth2-proxy']);
    const c = podSpec(deployment).containers[0];
    const env = envOf(c as never);
    expect(env.get('CONSOLE_AUTH')?.value).toBe('proxy');
    expect(env.get('CONSOLE_HOST')?.value).toBe('127.0.0.1');
    expect(env.get('CONSOLE_PROXY_USER_HEADER')?.value).toBe('X-Forwarded-Email');
    expect(env.get('CONSOLE_OPERATORS')?.value).toBe('group:oncall,carol@example.com');
    expect(env.has('CONSOLE_TOKENS_FILE')).toBe(false);
    expect(
      proxied.filter((m) => m.kind === 'Secret' && m.metadata.name.includes('console')),
    ).toEqual([]);
    expect(one(proxied, 'Service', consoleName).spec.ports).toEqual([
      { name: 'http', port: 8090, targetPort: 'proxy' },
    ]);
  });

  it('when enabled without a way to sign in, or with a short token, then rendering refuses, saying why', () => {
    expect(renderError([MINIMAL], ['--set', 'console.enabled=true'])).toContain(
      'console.auth is token but there is no token',
    );
    expect(
      renderError([MINIMAL], ['--set', 'console.enabled=true', '--set', 'console.auth=proxy']),
    ).toContain('console.proxy.containers holds no proxy');
    const short = CONSOLE_WITH_TOKENS.map((arg) =>
      arg === `console.tokens.entries[0].token=${TOKEN}`
        ? 'console.tokens.entries[0].token=short'
        : arg,
    );
    expect(renderError([MINIMAL], short)).toContain('/console/tokens/entries/0/token');
    expect(
      renderError(
        [MINIMAL],
        [...CONSOLE_WITH_TOKENS, '--set-string', 'console.config.CONSOLE_AUTH=none'],
      ),
    ).toContain("additional properties 'CONSOLE_AUTH' not allowed");
  });

  it("then console.config takes exactly the console's variables the chart does not set itself", () => {
    const chartSets = [
      'CONSOLE_AUTH',
      'CONSOLE_TOKENS_FILE',
      'CONSOLE_PROXY_USER_HEADER',
      'CONSOLE_PROXY_GROUPS_HEADER',
      'CONSOLE_OPERATORS',
      'CONSOLE_PORT',
      'CONSOLE_HOST',
      'CONSOLE_INSTANCES',
    ];
    const left = CONSOLE_VARIABLES.map((v) => v.name as string).filter(
      (name) => name.startsWith('CONSOLE_') && !chartSets.includes(name),
    );
    for (const name of left) {
      expect(
        renderError(
          [MINIMAL],
          [...CONSOLE_WITH_TOKENS, '--set-string', `console.config.${name}=1`],
        ),
        name,
      ).toBe('');
    }
    expect(left.sort()).toEqual([
      'CONSOLE_REFRESH',
      'CONSOLE_REPLAY_LIMIT',
      'CONSOLE_SCAN_RECORDS',
      'CONSOLE_SESSION',
    ]);
  });
});
