/**
 * `signing-bridge simulator --fault SPEC`: one scripted fault per option, in the order given,
 * e.g. `--fault late,operation=addSignatory,ms=4000` or `--fault maintenance,status=503,times=5`.
 * SPEC is comma-separated: a bare item is the kind (`kind=late` says the same), the others are
 * `key=value`. The ScriptedFault schema decides which keys a kind takes and their bounds, so the
 * command line accepts exactly what `PUT /admin/faults` does.
 */
import type { z } from 'zod';
import { OPERATIONS } from '../schemas/platform/operations.js';
import { FaultKind, ScriptedFault } from '../simulator/faults/config.js';

const TEXT_KEYS = ['kind', 'operation'] as const;
const NUMBER_KEYS = ['times', 'ms', 'status', 'bytes'] as const;
const KEYS: readonly string[] = [...TEXT_KEYS, ...NUMBER_KEYS];

/** Throws an Error whose message names the option, the value and what is wrong with it. */
export function parseFaultOption(spec: string): ScriptedFault {
  // Typed where it is declared, so that the compiler knows nothing runs after a call to it.
  const fail: (reason: string) => never = (reason) => {
    throw new Error(`--fault "${spec}": ${reason}`);
  };
  const fields: Record<string, string | number> = {};
  for (const item of spec.split(',')) {
    const [key, value] = keyAndValue(item);
    if (!KEYS.includes(key)) fail(`unknown key "${key}" (keys: ${KEYS.join(', ')})`);
    if (key in fields) fail(`${key} is given twice`);
    if (value === '') fail(`${key} has no value`);
    fields[key] = TEXT_KEYS.includes(key as 'kind') ? value : wholeNumber(key, value, fail);
  }
  if (!FaultKind.safeParse(fields.kind).success) {
    fail(`the kind must be one of ${FaultKind.options.join(', ')}`);
  }
  const parsed = ScriptedFault.safeParse({ times: 1, ...fields });
  if (!parsed.success) fail(parsed.error.issues.map((i) => problem(i, fields)).join('; '));
  return parsed.data;
}

/** The schema's complaint, in the option's terms where the schema's own would puzzle. */
function problem(issue: z.core.$ZodIssue, fields: Record<string, unknown>): string {
  const kind = String(fields.kind);
  if (issue.code === 'unrecognized_keys') return `${kind} takes no ${issue.keys.join(', ')}`;
  const key = issue.path.join('.');
  if (fields[key] === undefined) return `${kind} needs ${key}`;
  return `${key}: ${issue.message}`;
}

function keyAndValue(item: string): [string, string] {
  const at = item.indexOf('=');
  return at < 0 ? ['kind', item.trim()] : [item.slice(0, at).trim(), item.slice(at + 1).trim()];
}

function wholeNumber(key: string, value: string, fail: (reason: string) => never): number {
  if (!/^\d+$/.test(value)) fail(`${key} must be a whole number, got "${value}"`);
  return Number(value);
}

/** The option's lines of the usage text, its lists taken from the schema and the operations. */
export function faultOptionUsage(indent: number, width: number): string {
  const pad = ' '.repeat(indent);
  const lines = [
    'script a fault (repeatable, used in order):',
    'KIND[,operation=OP][,times=N][,ms=N][,status=S][,bytes=B];',
    'times defaults to 1, e.g. late,operation=addSignatory,ms=4000',
    'what each kind does and takes: docs/simulator.md#faults',
    ...wrap(`KIND: ${FaultKind.options.join(', ')}`, width - indent),
    ...wrap(`OP: ${Object.keys(OPERATIONS).join(', ')}`, width - indent),
  ];
  return lines.map((line, i) => (i === 0 ? line : `${pad}${line}`)).join('\n');
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `  ${word}`;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  return [...lines, line];
}
