// The alert rules and the Grafana dashboard the chart ships: promtool checks and unit-tests the
// rules and parses every dashboard query, and every metric they name is one the bridge exports.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parser } from '@prometheus-io/lezer-promql';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { createMetrics } from '../../src/observability/index.js';
import { goTool } from '../support/tools.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const RULES = 'helm/signing-bridge/files/prometheus-rules.yaml';
const RULE_TESTS = 'test/deploy/prometheus-rules.test.yaml';
const DASHBOARD = 'helm/signing-bridge/files/grafana-dashboard.json';

const read = (path: string) => readFileSync(`${repoRoot}${path}`, 'utf8');
const promtool = goTool('promtool');
const scratch = mkdtempSync(join(tmpdir(), 'signing-bridge-rules-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function runPromtool(args: string[]) {
  const result = spawnSync(promtool, args, { cwd: repoRoot, encoding: 'utf8' });
  return { status: result.status, output: result.stdout + result.stderr };
}

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

interface RuleTest {
  alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[];
}

const rules = (parse(read(RULES)) as { groups: { rules: Rule[] }[] }).groups.flatMap(
  (g) => g.rules,
);

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

const dashboard = JSON.parse(read(DASHBOARD)) as {
  uid: string;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: string | { query: string } }[] };
};
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const dashboardExprs = panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
/** The metric selector inside each `label_values(selector, label)` variable query. */
const variableSelectors = dashboard.templating.list
  .filter((v) => v.type === 'query')
  .map((v) => {
    const query = typeof v.query === 'string' ? v.query : v.query.query;
    const selector = /^label_values\((.+),\s*\w+\)$/.exec(query)?.[1];
    if (!selector) throw new Error(`variable ${v.name}: not label_values(...): ${query}`);
    return selector;
  });

/** Grafana's variables replaced by what Prometheus would be sent. */
const asSent = (expr: string) =>
  expr.replaceAll('$__rate_interval', '5m').replace(/\$(namespace|job|pod)\b/g, 'x');

/** The metric names a PromQL expression selects, per Prometheus' own grammar (lezer-promql). */
function metricNames(expr: string): string[] {
  const names: string[] = [];
  const cursor = parser.parse(expr).cursor();
  do {
    if (cursor.type.isError) throw new Error(`not PromQL at ${cursor.from}: ${expr}`);
    if (cursor.name === 'Identifier' && cursor.node.parent?.name === 'VectorSelector') {
      names.push(expr.slice(cursor.from, cursor.to));
    }
  } while (cursor.next());
  return names;
}

/** Every sample name the bridge's registry exposes (histograms as _bucket, _sum and _count). */
async function registeredNames(): Promise<Set<string>> {
  const metrics = await createMetrics().registry.getMetricsAsJSON();
  return new Set(
    metrics.flatMap(({ name, type }) => {
      if (String(type) === 'histogram') return ['_bucket', '_sum', '_count'].map((s) => name + s);
      if (String(type) === 'summary') return [name, `${name}_sum`, `${name}_count`];
      return [name];
    }),
  );
}

describe('alert rules', () => {
  it('when promtool checks them, then they are valid', () => {
    const { status, output } = runPromtool(['check', 'rules', RULES]);
    expect(output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(status).toBe(0);
  });

  it('when promtool runs their unit tests, then every test passes', () => {
    const { status, output } = runPromtool(['test', 'rules', RULE_TESTS]);
    expect(output).toContain('SUCCESS');
    expect(status, output).toBe(0);
  });

  it('when promtool runs a unit test that expects the wrong alert, then it fails', () => {
    const tests = parse(read(RULE_TESTS)) as { tests: RuleTest[] };
    for (const test of tests.tests) {
      for (const t of test.alert_rule_test ?? []) t.exp_alerts = t.exp_alerts.length ? [] : [{}];
    }
    const broken = join(scratch, 'broken.test.yaml');
    writeFileSync(
      broken,
      stringify({ ...tests, rule_files: [`${repoRoot}${RULES}`] }, { lineWidth: 0 }),
    );
    expect(runPromtool(['test', 'rules', broken]).status).not.toBe(0);
  });

  it('then they alert on lag growth, an open circuit, refused credentials, outcomes unknown, dead letters, throttling, a bizId held back, a ledger window shrunk by its memory bound, a lost lease, Kafka refusing or stalling writes, unreadiness and restarts', () => {
    expect(rules.map((r) => r.alert)).toEqual([
      'SigningBridgeConsumerLagGrowing',
      'SigningBridgeCircuitOpen',
      'SigningBridgePlatformCredentialsRefused',
      'SigningBridgeOutcomesUnknown',
      'SigningBridgeDeadLetters',
      'SigningBridgePlatformThrottled',
      'SigningBridgeKeyHeldBack',
      'SigningBridgeLedgerWindowShrunk',
      'SigningBridgeLeaseLost',
      'SigningBridgeKafkaWritesRefused',
      'SigningBridgeKafkaWritesStalled',
      'SigningBridgeNotReady',
      'SigningBridgeRestarted',
    ]);
    const uses = (alert: string, metric: string) =>
      expect(metricNames(rules.find((r) => r.alert === alert)?.expr ?? '')).toContain(metric);
    uses('SigningBridgeConsumerLagGrowing', 'signing_bridge_consumer_lag');
    uses('SigningBridgeCircuitOpen', 'signing_bridge_circuit_state');
    uses('SigningBridgePlatformCredentialsRefused', 'signing_bridge_platform_outage');
    uses('SigningBridgeOutcomesUnknown', 'signing_bridge_outcomes_unknown_total');
    uses('SigningBridgeDeadLetters', 'signing_bridge_dead_letters_total');
    uses('SigningBridgePlatformThrottled', 'signing_bridge_platform_throttled_total');
    uses('SigningBridgeKeyHeldBack', 'signing_bridge_keys_held_back');
    uses('SigningBridgeLedgerWindowShrunk', 'signing_bridge_ledger_effective_window_seconds');
    uses('SigningBridgeLeaseLost', 'signing_bridge_leases_lost_total');
    uses('SigningBridgeKafkaWritesRefused', 'signing_bridge_kafka_writes_refused');
    uses('SigningBridgeKafkaWritesStalled', 'signing_bridge_kafka_write_stalled');
    uses('SigningBridgeNotReady', 'signing_bridge_ready');
    uses('SigningBridgeRestarted', 'process_start_time_seconds');
  });

  it('then each alert has a unit test where it fires and one where it stays quiet', () => {
    const tests = (parse(read(RULE_TESTS)) as { tests: RuleTest[] }).tests.flatMap(
      (t) => t.alert_rule_test ?? [],
    );
    for (const { alert } of rules) {
      const own = tests.filter((t) => t.alertname === alert);
      expect(
        own.some((t) => t.exp_alerts.length > 0),
        `${alert} fires`,
      ).toBe(true);
      expect(
        own.some((t) => t.exp_alerts.length === 0),
        `${alert} stays quiet`,
      ).toBe(true);
    }
  });

  it('then each alert has a severity, a summary, and a description pointing to its section of docs/alerts.md', () => {
    const doc = read('docs/alerts.md');
    for (const rule of rules) {
      const alert = rule.alert as string;
      expect(['warning', 'critical'], alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, alert).toBeTruthy();
      expect(rule.annotations?.description).toContain(`docs/alerts.md#${alert.toLowerCase()}`);
      expect(doc, alert).toContain(`\n## ${alert}\n`);
    }
  });
});

describe('Grafana dashboard', () => {
  it('has a stable uid and one query or more in every panel but the rows', () => {
    expect(dashboard.uid).toBe('signing-bridge');
    for (const panel of panels.filter((p) => p.type !== 'row')) {
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
    }
  });

  it('when promtool checks its queries, as Prometheus would receive them, then they are valid PromQL', () => {
    const exprs = [...dashboardExprs, ...variableSelectors].map(asSent);
    const file = join(scratch, 'dashboard-queries.yaml');
    const recorded = exprs.map((expr, i) => ({ record: `dashboard:query_${i}`, expr }));
    writeFileSync(file, stringify({ groups: [{ name: 'dashboard', rules: recorded }] }));
    const { status, output } = runPromtool(['check', 'rules', file]);
    expect(output).toContain(`SUCCESS: ${exprs.length} rules found`);
    expect(status).toBe(0);
  });
});

describe('the metrics the rules and the dashboard name', () => {
  const referenced = new Set(
    [...rules.map((r) => r.expr), ...dashboardExprs, ...variableSelectors]
      .map(asSent)
      .flatMap(metricNames),
  );

  it('are all registered by createMetrics()', async () => {
    const registered = await registeredNames();
    const unknown = [...referenced].filter((name) => !registered.has(name));
    expect(unknown, 'not registered').toEqual([]);
  });

  it('are found in expressions by the PromQL grammar', () => {
    expect(metricNames('sum by (a) (rate(x_total{a="b"}[5m])) / on (a) y and z')).toEqual([
      'x_total',
      'y',
      'z',
    ]);
    expect(() => metricNames('sum(rate(x[5m])')).toThrow(/not PromQL/);
  });
});
