/**
 * The use cases against a real simulator over HTTP, without Kafka: a SigningClient that does
 * not retry by itself (so a transient failure reaches the outcome), the file loader, and the
 * handlers, with a MemoryLedger standing in for the engine's ledger.
 */
import { randomUUID } from 'node:crypto';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { SigningClient } from '../../../src/api-client/index.js';
import { createFileLoader, type FileLoader } from '../../../src/files/index.js';
import { createHandlers, type Handlers, type Outcome } from '../../../src/handlers/index.js';
import type { CommandType } from '../../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../../src/simulator/index.js';
import { command, MemoryLedger } from './memory-ledger.js';

export const COMPANY = 'Demo Trading Co., Ltd.';
export const SUBSIDIARY = 'Demo Trading (Shanghai) Co., Ltd.';
export const SEAL = '2001';
export const APPROVER = { contact: '13800000003', contactType: 'MOBILE' } as const;

export const initiator = (actions: unknown[] = [{ type: 'COMPANY', sealId: SEAL }]) => ({
  tenantType: 'COMPANY',
  tenantName: COMPANY,
  actions,
});

export const person = (n = 1) => ({
  tenantType: 'PERSONAL',
  tenantName: `Person ${n}`,
  receiver: { contact: `1390000${String(n).padStart(4, '0')}`, contactType: 'MOBILE' },
});

export const uniqueBizId = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;

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
      timeouts: { headersMs: 1_000 },
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

/** A PDF with one page per text, so keyword and page positions can be placed. */
export async function pdfBase64(...pages: string[]): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) {
    doc.addPage([595, 842]).drawText(text, { x: 72, y: 760, size: 12, font });
  }
  return Buffer.from(await doc.save()).toString('base64');
}

export async function fileDocument(title: string, ...pages: string[]) {
  const base64 = await pdfBase64(...(pages.length > 0 ? pages : [`${title}: SEAL-HERE SIGN-HERE`]));
  return { source: 'file', title, fileSuffix: 'pdf', file: { base64 } } as const;
}

export const templateDocument = (title = 'NDA') =>
  ({ source: 'template', title, templateId: 'tpl-nda' }) as const;

/** A command's envelope: a fresh commandId for this bizId. */
export const meta = (bizId: string, tenantName?: string) => ({
  commandId: randomUUID(),
  bizId,
  ...(tenantName ? { tenantName } : {}),
});

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
  const bizId = setup.bizId ?? uniqueBizId('contract');
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
