/**
 * The hotkey scenario (issue 19, docs/design.md "Hot keys"): the simulator and the bridge at
 * `--drain-rps` (the platform's 20/s), the service's other defaults (MAX_PENDING 2000).
 *
 * - reminders: `--hotkey-reminds` reminders for one contract, then, 5 s later, one reminder for
 *   each of 20 other contracts, 1 s apart. Each of the 20 should end within 5 s of being sent
 *   while the busy contract drains at its own pace; all of its reminders end.
 * - documents: `--hotkey-documents` add-documents sent before their create-contract, which comes
 *   right after them; then 20 create-contracts of other bizIds, 1 s apart. The create-contract is
 *   fetched and runs, the documents are then added, the others are not held meanwhile.
 * - large documents: the same with `--hotkey-large-documents` add-documents whose inline file is
 *   about 500 KB (a PDF with an attachment), so that bytes (MAX_PENDING_BYTES), not the count,
 *   fill the backlog.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { PDFDocument } from 'pdf-lib';
import type { Command } from '../../src/schemas/messages/index.js';
import { scrape } from './bridge-metrics.js';
import { progress, type RunContext, runScenario, type Stage, type Started } from './run-context.js';
import { type Percentiles, percentiles } from './stats.js';
import { BRIDGE } from './subjects.js';
import type { Verdict } from './targets.js';
import { createContract, type Planned, TEMPLATE } from './workload.js';

const OTHERS = 20;
const OTHERS_EVERY_MS = 1_000;
const OTHERS_AFTER_MS = 5_000;
const MAX_IN_FLIGHT = 256;
/** The filler attached to each large document's PDF: about 500 KB, 670 KB in base64. */
const LARGE_FILE_BYTES = 500_000;
/** How long a phase may go without an event before the scenario gives up on it. */
const STALL_MS = 5 * 60_000;
export const HOTKEY_TARGET_MS = 5_000;

export interface HotkeyShape {
  readonly busy: {
    readonly sent: number;
    readonly ended: number;
    readonly outcomes: Record<string, number>;
  };
  /** The busy bizId's commands ended when the last of the others ended. */
  readonly busyEndedWhenOthersDone: number;
  readonly others: {
    readonly sent: number;
    readonly ended: number;
    readonly latencyMs: Percentiles;
  };
  /** From the first busy command sent to its last one ended. */
  readonly busyDrainSeconds: number;
  /** From the bridge's metrics at the end. */
  readonly keyHolds: number;
  readonly keyRewinds: number;
}

export interface HotkeyResult {
  readonly reminders: HotkeyShape;
  readonly documents: HotkeyShape;
  readonly largeDocuments: HotkeyShape;
}

type ShapeKind = keyof HotkeyResult;

export async function measureHotkey(run: RunContext): Promise<HotkeyResult> {
  return {
    reminders: await shape(run, 'reminders'),
    documents: await shape(run, 'documents'),
    largeDocuments: await shape(run, 'largeDocuments'),
  };
}

async function shape(run: RunContext, kind: ShapeKind): Promise<HotkeyShape> {
  const { drainRps, latencyMs, hotkey } = run.options;
  const plan = {
    name: `hotkey-${kind}`,
    subject: BRIDGE,
    requestsPerSecond: drainRps,
    connections: MAX_IN_FLIGHT,
    backlog: 0,
    capacity: 1,
    // Signing contracts: the busy one and the 20 others that are reminded.
    bizIds: 1 + OTHERS,
    mix: { remind: 20 },
    faults: { latency: { fixedMs: latencyMs }, requestsPerSecond: drainRps },
  };
  const file = kind === 'largeDocuments' ? await largePdf(LARGE_FILE_BYTES) : undefined;
  return runScenario(run, plan, (staged, started) => {
    if (kind === 'reminders') {
      return observe(
        staged,
        started,
        busyReminders(staged, hotkey.reminds),
        otherReminders(staged),
      );
    }
    const count = file ? hotkey.largeDocuments : hotkey.documents;
    const documents = earlyDocuments(staged, count, file);
    // A produce request of several ~670 KB records would pass the broker's message size.
    return observe(staged, started, documents, otherCreates(staged), file ? 1 : documents.length);
  });
}

/** A one-page PDF carrying `bytes` of random filler, base64. */
async function largePdf(bytes: number): Promise<string> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  await doc.attach(randomBytes(bytes), 'filler.bin', { mimeType: 'application/octet-stream' });
  return Buffer.from(await doc.save()).toString('base64');
}

function busyReminders(staged: Stage, count: number): Planned[] {
  const bizId = staged.workload.bizIds[0] as string;
  return Array.from({ length: count }, (_, i) => ({
    type: 'remind' as const,
    command: { commandId: `${staged.prefix}busy-${i}`, bizId, payload: { onlySigning: false } },
  }));
}

function otherReminders(staged: Stage): Planned[] {
  return staged.workload.bizIds.slice(1).map((bizId, i) => ({
    type: 'remind' as const,
    command: { commandId: `${staged.prefix}other-${i}`, bizId, payload: { onlySigning: false } },
  }));
}

/**
 * Add-documents of a contract not made yet (from a template, or with `file` inline), then its
 * create-contract (a draft, not initiated).
 */
function earlyDocuments(staged: Stage, count: number, file?: string): Planned[] {
  const bizId = `${staged.prefix}early`;
  const documents = Array.from({ length: count }, (_, i) => ({
    type: 'add-document' as const,
    command: {
      commandId: `${staged.prefix}busy-${i}`,
      bizId,
      payload: file
        ? { source: 'file', title: `doc ${i}`, fileSuffix: 'pdf', file: { base64: file } }
        : { source: 'template', ...TEMPLATE, title: `doc ${i}` },
    } as Command<'add-document'>,
  }));
  const { initiate: _, ...payload } = createContract(`${staged.prefix}busy-create`, bizId).payload;
  const create = {
    type: 'create-contract' as const,
    command: { commandId: `${staged.prefix}busy-create`, bizId, payload } as Command,
  };
  return [...documents, create];
}

function otherCreates(staged: Stage): Planned[] {
  return Array.from({ length: OTHERS }, (_, i) => {
    const id = `${staged.prefix}other-${i}`;
    return { type: 'create-contract' as const, command: createContract(id, id) };
  });
}

async function observe(
  staged: Stage,
  started: Started,
  busy: Planned[],
  others: Planned[],
  perRequest = busy.length,
): Promise<HotkeyShape> {
  const sentAt = Date.now();
  for (let i = 0; i < busy.length; i += perRequest) {
    await staged.writer.send(busy.slice(i, i + perRequest), 'busy');
  }
  await delay(OTHERS_AFTER_MS);
  for (const [i, other] of others.entries()) {
    await delay(sentAt + OTHERS_AFTER_MS + i * OTHERS_EVERY_MS - Date.now());
    await staged.writer.send([other], 'others');
  }
  const alive = () => started.child.running;
  await staged.tally.waitFor('others', others.length, STALL_MS, alive);
  const busyEndedWhenOthersDone = staged.tally.phase('busy').eventTimes.length;
  progress(`others done; the busy bizId has ${busyEndedWhenOthersDone} of ${busy.length} ended`);
  await staged.tally.waitFor('busy', busy.length, STALL_MS, alive);
  const metrics = started.metrics && (await scrape(started.metrics.port));
  const busyTimes = staged.tally.phase('busy').eventTimes;
  const othersPhase = staged.tally.phase('others');
  return {
    busy: {
      sent: busy.length,
      ended: busyTimes.length,
      outcomes: Object.fromEntries(staged.tally.outcomes),
    },
    busyEndedWhenOthersDone,
    others: {
      sent: others.length,
      ended: othersPhase.eventTimes.length,
      latencyMs: percentiles(othersPhase.latenciesMs),
    },
    busyDrainSeconds: Math.round((Math.max(...busyTimes) - sentAt) / 100) / 10,
    keyHolds: metrics?.get('key_holds_total') ?? 0,
    keyRewinds: metrics?.get('key_rewinds_total') ?? 0,
  };
}

export function hotkeyVerdicts(r: HotkeyResult): Verdict[] {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  // `overlap`: the busy bizId must still have work when the others are done. Not asked of the
  // large documents: 30 of them go within seconds, before the last of the others is sent.
  const verdicts = (name: string, shape: HotkeyShape, done: string, overlap = true): Verdict[] => [
    {
      target: `${name}: each of the ${shape.others.sent} others ends within ${s(HOTKEY_TARGET_MS)}`,
      measured: `p50 ${s(shape.others.latencyMs.p50)}, max ${s(shape.others.latencyMs.max)}, ${shape.others.ended} ended`,
      pass:
        shape.others.ended === shape.others.sent && shape.others.latencyMs.max <= HOTKEY_TARGET_MS,
    },
    {
      target: `${name}: ${overlap ? 'the busy bizId still had work when they were done, and ' : ''}all of it ends ${done}`,
      measured: `${shape.busyEndedWhenOthersDone} then, ${shape.busy.ended} of ${shape.busy.sent} in the end; ${JSON.stringify(shape.busy.outcomes)}`,
      pass:
        (!overlap || shape.busyEndedWhenOthersDone < shape.busy.sent) &&
        shape.busy.ended === shape.busy.sent &&
        Object.keys(shape.busy.outcomes).every(
          (type) =>
            type === done ||
            type === 'signingbridge.contract.created' ||
            type === 'signingbridge.reminder.sent',
        ),
    },
  ];
  return [
    ...verdicts('reminders', r.reminders, 'signingbridge.reminder.sent'),
    ...verdicts('documents', r.documents, 'signingbridge.document.added'),
    ...verdicts('large documents', r.largeDocuments, 'signingbridge.document.added', false),
  ];
}

export function printHotkey(r: HotkeyResult, verdicts: readonly Verdict[]): void {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  out('\nHot keys: one busy bizId, then 20 others');
  const row = (label: string, pick: (shape: HotkeyShape) => string) =>
    out(
      `  ${label.padEnd(40)} ${[r.reminders, r.documents, r.largeDocuments].map((x) => pick(x).padStart(26)).join(' ')}`,
    );
  out(
    `  ${''.padEnd(40)} ${['busy reminders', 'docs before create', '~500 KB docs before create'].map((h) => h.padStart(26)).join(' ')}`,
  );
  row('busy sent / ended', (x) => `${x.busy.sent} / ${x.busy.ended}`);
  row('busy drained in', (x) => `${x.busyDrainSeconds} s`);
  row('busy ended when the others were done', (x) => `${x.busyEndedWhenOthersDone}`);
  row('others e2e p50 / p99 / max', (x) => {
    const l = x.others.latencyMs;
    return `${s(l.p50)} / ${s(l.p99)} / ${s(l.max)}`;
  });
  row('holds / re-reads (bridge metrics)', (x) => `${x.keyHolds} / ${x.keyRewinds}`);
  out();
  for (const v of verdicts) out(`  ${v.pass ? 'PASS' : 'FAIL'}  ${v.target}: ${v.measured}`);
}
