/**
 * The use cases against a real simulator over HTTP, without Kafka: a SigningClient that does
 * not retry by itself (so a transient failure reaches the outcome), the file loader, and the
 * handlers, with a MemoryLedger standing in for the engine's ledger.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { SigningClient } from '../../../src/api-client/index.js';
import { createFileLoader, type FileLoader } from '../../../src/files/index.js';
import { createHandlers, type Handlers, type Outcome } from '../../../src/handlers/index.js';
import type { CommandType } from '../../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../../src/simulator/index.js';
import { uniqueId } from '../../support/unique.js';
import { fileDocument, initiator, meta, person } from './fixtures.js';
import { command, MemoryLedger } from './memory-ledger.js';

export * from './fixtures.js';

export interface Bench {
  readonly sim: RunningSimulator;
  readonly handlers: Handlers;
  /** Runs the handler of `type` on the command as the engine would hand it over. */
  run<T extends CommandType>(type: T, raw: unknown, ledger?: MemoryLedger): Promise<Outcome>;
}

/** Registers start/stop hooks; read the bench inside tests (it is filled in beforeAll). */
export function useBench(): Bench {
  let client: SigningClient;
  let files: FileLoader;
  const bench = {} as { -readonly [K in keyof Bench]: Bench[K] };
  beforeAll(async () => {
    bench.sim = await startSimulator({ log: false });
    client = new SigningClient({
      baseUrl: bench.sim.url,
      appToken: 'demo-app-token',
      appSecret: 'demo-app-secret',
      requestsPerSecond: 0,
      retry: { maxAttempts: 1 },
      timeouts: { callMs: 1_000 },
    });
    files = createFileLoader({
      allowedHosts: ['127.0.0.1'],
      allowPrivate: true,
      maxBytes: 1_000_000,
      timeoutMs: 2_000,
      maxRedirects: 0,
    });
    bench.handlers = createHandlers({ client, files });
    bench.run = async (type, raw, ledger = new MemoryLedger()) => {
      const handler = bench.handlers[type] as (c: unknown) => Promise<Outcome>;
      return ledger.settle(await handler(ledger.context(type, command(type, raw))));
    };
  });
  beforeEach(() => bench.sim.admin.setFaults({}));
  afterAll(async () => {
    await client?.close();
    await files?.close();
    await bench.sim?.stop();
  });
  return bench;
}

/** An outcome in a few words: `completed`, or `<kind> [<reason>] @<step>: <platform code or our code>`. */
export function verdict(outcome: Outcome): string {
  if (outcome.kind === 'completed') return 'completed';
  const { platformCode } = outcome.error.details as { platformCode?: string };
  const reason = outcome.kind === 'retry' ? ` ${outcome.reason}` : '';
  return `${outcome.kind}${reason} @${outcome.step}: ${platformCode ?? outcome.error.code}`;
}

export interface ContractSetup {
  readonly bizId?: string;
  readonly tenantName?: string;
  readonly signatories?: unknown[];
  readonly category?: { id: string };
  readonly initiate?: boolean;
}

/** A contract made by the create-contract use case: one document, initiated unless told otherwise. */
export async function createContract(bench: Bench, setup: ContractSetup = {}) {
  const bizId = setup.bizId ?? uniqueId('contract');
  const raw = {
    ...meta(bizId, setup.tenantName),
    payload: {
      contract: {
        subject: `Contract ${bizId}`,
        signatories: setup.signatories ?? [initiator(), person(1)],
        ...(setup.category ? { category: setup.category } : {}),
      },
      documents: [await fileDocument('Agreement')],
      ...(setup.initiate === false ? {} : { initiate: {} }),
    },
  };
  const outcome = await bench.run('create-contract', raw);
  if (outcome.kind !== 'completed') throw new Error(`setup failed: ${verdict(outcome)}`);
  const record = await bench.sim.admin.contract({ bizId });
  return { bizId, contractId: record.id, record };
}

/** The terminal event of a completed outcome. */
export function terminal(outcome: Outcome) {
  if (outcome.kind !== 'completed') throw new Error(`expected completed, got ${verdict(outcome)}`);
  return outcome.event;
}
