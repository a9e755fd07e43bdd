/** The bridge benchmark's command-line options (`npm run bench -- --help`). */
import { parseArgs } from 'node:util';

export const USAGE = `Usage: npm run bench -- [options]

Scenarios, each selectable with --only (default: all, in this order):
  throughput  the bridge against a naive kafkajs baseline on the same backlog, then the drain
              of a backlog under the platform's rate limit (bench/results/bridge.json)
  fairness    interactive create-contracts behind a batch of reminders, with priority classes
              and without (bench/results/fairness.json)
  hotkey      one busy bizId (reminders; add-documents, small and ~500 KB, before their
              create-contract), 20 others sent after it (bench/results/hotkey.json)
  group       bridge processes sharing one platform budget while one is killed and one added
              (bench/results/group.json)
  deploy      a rolling deploy under a rate-limited backlog: B joins, then A gets SIGTERM; the
              delay it adds to each command against the same backlog without a deploy
              (bench/results/deploy.json)
  ledger      the bridge starting on ledgers of 100k, 1M and 10M bizIds of history, 100k of
              them within the replay window; a rebalance on the 1M one; the longest, by far
              (bench/results/ledger-scale.json; also npm run bench:ledger)

  --only LIST            the scenarios to run, comma-separated
                         (default throughput,fairness,hotkey,group,deploy,ledger)
  --commands N           backlog of the throughput scenario (default 30000)
  --baseline-commands N  the baseline's backlog (default: --commands, at most 10000: the
                         baseline drains ~150/s, and throughput is a rate)
  --biz-ids N            contracts remind and approve address (default 3000)
  --latency-ms N         simulator latency added to every call (default 50)
  --connections N        keep-alive connections to the platform, both subjects, and the
                         bridge's MAX_IN_FLIGHT (default 512)
  --paced-seconds S      after the backlog, commands at a steady rate for S s to measure
                         latency without queueing; 0 skips it (default 10)
  --paced-share R        that rate, as a share of the subject's own throughput (default 0.5)
  --skip-baseline        measure the bridge only (and parallel-consumer, with --pc)
  --pc                   also measure Confluent's parallel-consumer doing the baseline's work
                         (bench/parallel-consumer/, built with Maven on first use; needs Java
                         17 and Maven): a third column, and bridge/parallel-consumer ratios
  --pc-commands N        parallel-consumer's backlog (default: --commands)
  --skip-drain           skip the rate-limited drain scenario
  --drain-commands N     backlog of the drain scenario (default 20000)
  --drain-rps N          simulator limit and bridge SIGNING_RPS, of the drain, fairness and
                         group scenarios (default 20)
  --drain-warmup S       seconds after the bridge is ready before the window (default 20)
  --drain-seconds S      length of the measured window (default 120)
  --fairness-reminds N   reminders queued before the interactive commands (default 20000)
  --fairness-contracts N signing contracts they address (default 300)
  --fairness-warmup S    seconds after the bridge is ready before the first create-contract
                         (default 20)
  --fairness-seconds S   one create-contract every --fairness-every-ms for S s (default 60)
  --fairness-every-ms N  (default 2000)
  --hotkey-reminds N     reminders for one contract before 20 others (default 3000)
  --hotkey-documents N   add-documents sent before their create-contract (default 2000)
  --hotkey-large-documents N
                         the same with ~500 KB inline files (default 30)
  --group-commands N     backlog the group drains (default 20000)
  --group-bridges N      bridge processes at the start (default 3)
  --group-overbudget-seconds S  first, the same processes given three times the budget (each
                         its old per-instance 20/s) for S s: what AIMD makes of it; 0 skips
                         (default 60)
  --deploy-reminds N     reminders queued for the deploy scenario (default 400)
  --deploy-contracts N   signing contracts they address (default 40)
  --deploy-rps N         the group's SIGNING_RPS in the deploy scenario (default 5)
  --deploy-join-after S  B joins S s after A consumes (default 10)
  --deploy-stop-after S  A gets SIGTERM S s after B consumes (default 10)
  --ledger-sizes LIST    bizIds of history of each ledger; 0 first gives the baseline memory
                         (default 0,100000,1000000,10000000)
  --ledger-window N      bizIds of each ledger active within the replay window (default 100000)
  --ledger-commands N    new commands after each start (default 1000)
  --ledger-rebalance-size N  the ledger on which a second bridge joins (default 1000000)
  --cpu-prof             write the Node subjects' V8 CPU profiles to bench/results/profiles/
  --gc-tally             count the Node subjects' garbage collections and the bytes their heap
                         allocated over the backlog (bench/support/gc-tally.mjs), per command
  --heap-sample          with --gc-tally, also V8's sampling heap profile of the backlog's
                         allocations (collected objects included) to bench/results/profiles/
                         (read it with bench/profile-top.ts --areas)
  --tsx                  run the subjects from source under tsx, not compiled by tsc
  --bridge-flags=F       node flags for the bridge only, e.g. --bridge-flags=--max-old-space-size=128
  --bridge-env K=V,...   more environment for the bridge, e.g. MAX_PENDING=4000
  -h, --help             show this help
`;

export const SCENARIOS = ['throughput', 'fairness', 'hotkey', 'group', 'deploy', 'ledger'] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface Options {
  readonly scenarios: ReadonlySet<Scenario>;
  readonly commands: number;
  readonly baselineCommands: number;
  readonly bizIds: number;
  readonly latencyMs: number;
  readonly connections: number;
  readonly pacedSeconds: number;
  readonly pacedShare: number;
  readonly skipBaseline: boolean;
  /** Whether parallel-consumer is measured too (a third subject), and its backlog. */
  readonly pc: boolean;
  readonly pcCommands: number;
  readonly skipDrain: boolean;
  readonly drainCommands: number;
  readonly drainRps: number;
  readonly drainWarmupS: number;
  readonly drainSeconds: number;
  readonly fairness: {
    readonly reminds: number;
    readonly contracts: number;
    readonly warmupS: number;
    readonly seconds: number;
    readonly everyMs: number;
  };
  readonly hotkey: {
    readonly reminds: number;
    readonly documents: number;
    readonly largeDocuments: number;
  };
  readonly group: {
    readonly commands: number;
    readonly bridges: number;
    readonly overbudgetSeconds: number;
  };
  readonly deploy: {
    readonly reminds: number;
    readonly contracts: number;
    readonly rps: number;
    readonly joinAfterS: number;
    readonly stopAfterS: number;
  };
  readonly ledger: {
    readonly sizes: readonly number[];
    readonly windowBizIds: number;
    readonly commands: number;
    readonly rebalanceSize: number;
  };
  readonly cpuProf: boolean;
  readonly gcTally: boolean;
  readonly heapSample: boolean;
  readonly tsx: boolean;
  readonly bridgeFlags: readonly string[];
  readonly bridgeEnv: Readonly<Record<string, string>>;
}

const BASELINE_DEFAULT_MAX = 10_000;
const number = { type: 'string' } as const;
const flag = { type: 'boolean', default: false } as const;

export function parseOptions(argv: string[]): Options | 'help' {
  const { values: v } = parseArgs({
    args: argv,
    strict: true,
    options: {
      only: { ...number, default: SCENARIOS.join(',') },
      commands: { ...number, default: '30000' },
      'baseline-commands': number,
      'biz-ids': { ...number, default: '3000' },
      'latency-ms': { ...number, default: '50' },
      connections: { ...number, default: '512' },
      'paced-seconds': { ...number, default: '10' },
      'paced-share': { ...number, default: '0.5' },
      'skip-baseline': flag,
      pc: flag,
      'pc-commands': number,
      'skip-drain': flag,
      'drain-commands': { ...number, default: '20000' },
      'drain-rps': { ...number, default: '20' },
      'drain-warmup': { ...number, default: '20' },
      'drain-seconds': { ...number, default: '120' },
      'fairness-reminds': { ...number, default: '20000' },
      'fairness-contracts': { ...number, default: '300' },
      'fairness-warmup': { ...number, default: '20' },
      'fairness-seconds': { ...number, default: '60' },
      'fairness-every-ms': { ...number, default: '2000' },
      'hotkey-reminds': { ...number, default: '3000' },
      'hotkey-documents': { ...number, default: '2000' },
      'hotkey-large-documents': { ...number, default: '30' },
      'group-commands': { ...number, default: '20000' },
      'group-bridges': { ...number, default: '3' },
      'group-overbudget-seconds': { ...number, default: '60' },
      'deploy-reminds': { ...number, default: '400' },
      'deploy-contracts': { ...number, default: '40' },
      'deploy-rps': { ...number, default: '5' },
      'deploy-join-after': { ...number, default: '10' },
      'deploy-stop-after': { ...number, default: '10' },
      'ledger-sizes': { ...number, default: '0,100000,1000000,10000000' },
      'ledger-window': { ...number, default: '100000' },
      'ledger-commands': { ...number, default: '1000' },
      'ledger-rebalance-size': { ...number, default: '1000000' },
      'cpu-prof': flag,
      'gc-tally': flag,
      'heap-sample': flag,
      tsx: flag,
      'bridge-flags': { ...number, default: '' },
      'bridge-env': { ...number, default: '' },
      help: { ...flag, short: 'h' },
    },
  });
  if (v.help) return 'help';
  const commands = atLeast(1, 'commands', v.commands);
  return {
    scenarios: scenarios(v.only),
    commands,
    baselineCommands: atLeast(
      1,
      'baseline-commands',
      v['baseline-commands'] ?? String(Math.min(commands, BASELINE_DEFAULT_MAX)),
    ),
    bizIds: atLeast(1, 'biz-ids', v['biz-ids']),
    latencyMs: atLeast(0, 'latency-ms', v['latency-ms']),
    connections: atLeast(1, 'connections', v.connections),
    pacedSeconds: atLeast(0, 'paced-seconds', v['paced-seconds']),
    pacedShare: atLeast(0.01, 'paced-share', v['paced-share']),
    skipBaseline: v['skip-baseline'],
    pc: v.pc,
    pcCommands: atLeast(1, 'pc-commands', v['pc-commands'] ?? String(commands)),
    skipDrain: v['skip-drain'],
    drainCommands: atLeast(1, 'drain-commands', v['drain-commands']),
    drainRps: atLeast(1, 'drain-rps', v['drain-rps']),
    drainWarmupS: atLeast(0, 'drain-warmup', v['drain-warmup']),
    drainSeconds: atLeast(5, 'drain-seconds', v['drain-seconds']),
    fairness: {
      reminds: atLeast(1, 'fairness-reminds', v['fairness-reminds']),
      contracts: atLeast(1, 'fairness-contracts', v['fairness-contracts']),
      warmupS: atLeast(0, 'fairness-warmup', v['fairness-warmup']),
      seconds: atLeast(1, 'fairness-seconds', v['fairness-seconds']),
      everyMs: atLeast(100, 'fairness-every-ms', v['fairness-every-ms']),
    },
    hotkey: {
      reminds: atLeast(1, 'hotkey-reminds', v['hotkey-reminds']),
      documents: atLeast(1, 'hotkey-documents', v['hotkey-documents']),
      largeDocuments: atLeast(1, 'hotkey-large-documents', v['hotkey-large-documents']),
    },
    group: {
      commands: atLeast(1, 'group-commands', v['group-commands']),
      bridges: atLeast(2, 'group-bridges', v['group-bridges']),
      overbudgetSeconds: atLeast(0, 'group-overbudget-seconds', v['group-overbudget-seconds']),
    },
    deploy: {
      reminds: atLeast(1, 'deploy-reminds', v['deploy-reminds']),
      contracts: atLeast(1, 'deploy-contracts', v['deploy-contracts']),
      rps: atLeast(1, 'deploy-rps', v['deploy-rps']),
      joinAfterS: atLeast(0, 'deploy-join-after', v['deploy-join-after']),
      stopAfterS: atLeast(0, 'deploy-stop-after', v['deploy-stop-after']),
    },
    ledger: {
      sizes: v['ledger-sizes'].split(',').map((size) => atLeast(0, 'ledger-sizes', size)),
      windowBizIds: atLeast(1, 'ledger-window', v['ledger-window']),
      commands: atLeast(1, 'ledger-commands', v['ledger-commands']),
      rebalanceSize: atLeast(0, 'ledger-rebalance-size', v['ledger-rebalance-size']),
    },
    cpuProf: v['cpu-prof'],
    gcTally: v['gc-tally'] || v['heap-sample'],
    heapSample: v['heap-sample'],
    tsx: v.tsx,
    bridgeFlags: v['bridge-flags'].split(' ').filter(Boolean),
    bridgeEnv: assignments(v['bridge-env']),
  };
}

function scenarios(list: string): Set<Scenario> {
  const names = list.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(`--only takes ${SCENARIOS.join(', ')}, not "${unknown.join(', ')}"`);
  }
  return new Set(names as Scenario[]);
}

function assignments(list: string): Record<string, string> {
  const pairs = list.split(',').filter(Boolean);
  return Object.fromEntries(
    pairs.map((pair) => {
      const [name = '', ...value] = pair.split('=');
      if (!/^[A-Z_][A-Z0-9_]*$/.test(name) || value.length === 0) {
        throw new Error(`--bridge-env takes NAME=value pairs, not "${pair}"`);
      }
      return [name, value.join('=')];
    }),
  );
}

function atLeast(min: number, name: string, value: string): number {
  const n = Number(value);
  if (!(n >= min)) throw new Error(`--${name} must be a number of at least ${min}, not "${value}"`);
  return n;
}
