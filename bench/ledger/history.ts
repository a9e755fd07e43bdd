/**
 * A ledger's history for the scale benchmark, in the bridge's own record format: the values are
 * made by src/ledger's own functions (a create-contract's draft started and done and its end; a
 * bizId active within the window also has three later commands ended), with `{B}` for the bizId
 * and `{K}` for its contract id, and written by Java's kafka-clients (LedgerWriter.java, compiled
 * here against the local broker's jars), which writes tens of millions of records in the time
 * kafkajs writes a few.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_KAFKA_VERSION, ensureKafkaInstalled } from '../../scripts/local-kafka/broker.js';
import { EMPTY_ENTRY, entryRecord, withCommandEnded, withStep } from '../../src/ledger/index.js';
import { ROOT } from '../support/child-process.js';

const KEEP = 100;
const BUILD_DIR = join(ROOT, '.tmp/ledger-writer');

/** The records one bizId leaves: 3 for a contract made, 6 with three later commands. */
export function historyTemplates(active: boolean): string[] {
  const create = '{B}-create';
  const started = withStep(EMPTY_ENTRY, create, 'draft', { state: 'started' }, KEEP);
  const drafted = withStep(
    started,
    create,
    'draft',
    { state: 'done', result: { contractId: '{K}' } },
    KEEP,
  );
  const entries = [started, drafted, withCommandEnded(drafted, create, KEEP, '{K}')];
  if (active) {
    for (const later of ['{B}-remind-1', '{B}-approve-1', '{B}-remind-2']) {
      entries.push(withCommandEnded(entries.at(-1) ?? EMPTY_ENTRY, later, KEEP));
    }
  }
  return entries.map((entry) => String(entryRecord('ledger', 0, '{B}', entry, undefined).value));
}

export interface HistoryPart {
  readonly prefix: string;
  readonly count: number;
  readonly fromMs: number;
  readonly toMs: number;
  readonly active: boolean;
}

/** Writes `count` bizIds' records, their timestamps spread from `fromMs` to `toMs`. */
export async function writeHistory(
  brokers: readonly string[],
  topic: string,
  part: HistoryPart,
): Promise<void> {
  if (part.count === 0) return;
  const classpath = await compileWriter();
  const templates = join(BUILD_DIR, `templates-${part.active ? 'active' : 'old'}.txt`);
  await writeFile(templates, `${historyTemplates(part.active).join('\n')}\n`);
  const args = [
    brokers.join(','),
    topic,
    part.prefix,
    '0',
    String(part.count),
    String(part.fromMs),
    String(part.toMs),
    templates,
  ];
  await runJava(['-Xmx512m', '-cp', classpath, 'LedgerWriter', ...args]);
}

async function compileWriter(): Promise<string> {
  const libs = await ensureKafkaInstalled(DEFAULT_KAFKA_VERSION);
  const classpath = `${join(libs, '*')}:${BUILD_DIR}`;
  if (!existsSync(join(BUILD_DIR, 'LedgerWriter.class'))) {
    await mkdir(BUILD_DIR, { recursive: true });
    const source = join(ROOT, 'bench/ledger/LedgerWriter.java');
    await runJava(['-d', BUILD_DIR, '-cp', classpath, source], 'javac');
  }
  return classpath;
}

async function runJava(args: readonly string[], command = 'java'): Promise<void> {
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${command} exited with ${code}`);
}
