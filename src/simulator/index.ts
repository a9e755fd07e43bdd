/**
 * A faithful stand-in for the signing platform: the seven operations of the interface spec with
 * their rules and codes, authentication as the platform notes describe it, real documents,
 * fixtures for everything configured outside the interface, injectable faults, and an admin API
 * for tests. See docs/simulator.md.
 */
import { fileURLToPath } from 'node:url';
import pino, { type Logger } from 'pino';
import type { AdminDeps } from './admin/routes.js';
import { AdminClient } from './admin-client.js';
import { Authenticator, type AuthOptions } from './auth.js';
import { CallLog } from './call-log.js';
import { createClock } from './clock.js';
import { Directory } from './directory.js';
import { preloadDocumentReaders } from './documents/index.js';
import { type FaultConfig, FaultInjector } from './faults/index.js';
import { type Fixtures, type FixturesInput, loadFixtures, parseFixtures } from './fixtures.js';
import { IdSequence } from './ids.js';
import { HANDLERS } from './operations/index.js';
import type { PlatformDeps } from './platform-router.js';
import type { RequestLimits } from './request-decoding.js';
import { createSimulatorServer } from './server.js';
import { ContractStore } from './state/store.js';

export {
  AdminClient,
  AdminRequestFailed,
  type ContractLookup,
  type Verdict,
} from './admin-client.js';
export type { AuthOptions } from './auth.js';
export type { CallFilter, CallRecord } from './call-log.js';
export type { CallFault, FaultConfig, FaultKind, ScriptedFault } from './faults/index.js';
export { type Fixtures, type FixturesInput, loadFixtures, parseFixtures } from './fixtures.js';
export type { ContractRecord } from './state/model.js';

/** The fixtures the demo uses and the docs describe (app token `demo-app-token`). */
export const DEFAULT_FIXTURES_PATH = fileURLToPath(
  new URL('../../fixtures/default.json', import.meta.url),
);

export interface SimulatorOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: an ephemeral port. */
  readonly port?: number;
  /** Fixtures as data or a JSON file path; default DEFAULT_FIXTURES_PATH. */
  readonly fixtures?: FixturesInput | Fixtures | string;
  readonly faults?: FaultConfig;
  /** One line per request; default a pino logger on stdout (asynchronous); false for none. */
  readonly log?: Logger | false;
  readonly auth?: AuthOptions;
  /** Offset of the platform's `yyyy-MM-dd HH:mm:ss` timestamps from UTC, in minutes; default 0. */
  readonly utcOffsetMinutes?: number;
  /** The clock, for tests that move time; default Date.now. */
  readonly now?: () => number;
  /** How many calls the call log keeps; default 10,000. */
  readonly callLogLimit?: number;
  /** Body size limits; default 1 MiB of JSON, 50 MiB of upload. */
  readonly limits?: Partial<RequestLimits>;
  /** How long stop() lets requests in flight finish before cutting them; default 1,000 ms. */
  readonly stopGraceMs?: number;
}

export interface RunningSimulator {
  /** Base URL, e.g. `http://127.0.0.1:43117`, for the client and for the AdminClient. */
  readonly url: string;
  readonly port: number;
  readonly admin: AdminClient;
  stop(): Promise<void>;
}

const DEFAULT_LIMITS: RequestLimits = { jsonBytes: 1_048_576, uploadBytes: 52_428_800 };

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const fixtures = await resolveFixtures(options.fixtures);
  // Loading pdf.js takes up to seconds; doing it now keeps the first upload within a client's timeout.
  await preloadDocumentReaders();
  const log = options.log === false ? undefined : (options.log ?? defaultLogger());
  const now = options.now ?? Date.now;
  const clock = createClock(now, options.utcOffsetMinutes);
  const directory = new Directory(fixtures);
  const store = new ContractStore(clock);
  const calls = new CallLog(options.callLogLimit);
  const auth = new Authenticator(directory, options.auth, now);
  const faults = new FaultInjector(options.faults);
  const startFaults = faults.config;
  const context = { store, directory, clock, ids: new IdSequence() };
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const platform: PlatformDeps = { context, handlers: HANDLERS, auth, faults, calls, limits, log };
  const reset = () => {
    store.clear();
    calls.clear();
    directory.resetSeals();
    auth.reset();
    faults.configure(startFaults);
  };
  const admin: AdminDeps = { store, directory, clock, calls, faults, reset, log };
  const server = createSimulatorServer(platform, admin, log);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log?.info({ url, company: fixtures.company.name }, 'simulator listening');
  return {
    url,
    port,
    admin: new AdminClient(url),
    stop: () => stopServer(server, options.stopGraceMs ?? 1000),
  };
}

async function resolveFixtures(fixtures: SimulatorOptions['fixtures']): Promise<Fixtures> {
  if (fixtures === undefined) return loadFixtures(DEFAULT_FIXTURES_PATH);
  return typeof fixtures === 'string' ? loadFixtures(fixtures) : parseFixtures(fixtures);
}

function defaultLogger(): Logger {
  return pino({ name: 'simulator' }, pino.destination({ dest: 1, sync: false }));
}

/** Idle keep-alive sockets close at once; busy ones get the grace period (a hang fault never ends). */
function stopServer(
  server: ReturnType<typeof createSimulatorServer>,
  graceMs: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    server.close((error) => {
      clearTimeout(force);
      if (error) reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });
}
