/** Rules between variables: each is checked once its variables are valid on their own. */
import type { InvalidField } from '../errors.js';
import { kafkaChecks } from './kafka-checks.js';
import type { VariableName } from './table.js';
import { classChecks } from './variables/classes.js';

interface PairRule {
  readonly larger: VariableName;
  readonly smaller: VariableName;
}

/** `larger` must be at least `smaller`. */
export const AT_LEAST: readonly PairRule[] = [
  { larger: 'MAX_PENDING', smaller: 'MAX_IN_FLIGHT' },
  { larger: 'RETRY_MAX_DELAY_MS', smaller: 'RETRY_INITIAL_DELAY_MS' },
  { larger: 'PRECONDITION_MAX_DELAY_MS', smaller: 'PRECONDITION_INITIAL_DELAY_MS' },
  { larger: 'BREAKER_MAX_OPEN_MS', smaller: 'BREAKER_OPEN_MS' },
  { larger: 'TOPIC_REPLICATION_FACTOR', smaller: 'TOPIC_MIN_INSYNC_REPLICAS' },
];

/** `invalid`: the variables already found bad on their own. */
export function crossCheck(
  values: Partial<Record<VariableName, unknown>>,
  invalid: ReadonlySet<string>,
): InvalidField[] {
  const ordered = AT_LEAST.flatMap(({ larger, smaller }) => {
    const big = values[larger];
    const small = values[smaller];
    if (typeof big !== 'number' || typeof small !== 'number' || big >= small) return [];
    return [{ path: larger, rule: `must be at least ${smaller} (${small})` }];
  });
  return [
    ...ordered,
    ...pendingBytes(values),
    ...kafkaChecks(values, invalid),
    ...classChecks(values, invalid),
  ];
}

/** A record as large as the limits admit must fit within MAX_PENDING_BYTES, or none would run. */
function pendingBytes(values: Partial<Record<VariableName, unknown>>): InvalidField[] {
  const parts = [
    values.RECORD_MAX_KEY_BYTES,
    values.RECORD_MAX_VALUE_BYTES,
    values.RECORD_MAX_HEADER_BYTES,
  ];
  const budget = values.MAX_PENDING_BYTES;
  if (typeof budget !== 'number' || !parts.every((p) => typeof p === 'number')) return [];
  const largest = (parts as number[]).reduce((sum, p) => sum + p, 0);
  if (budget >= largest) return [];
  const rule = `must be at least the largest record the RECORD_MAX_* limits admit (${largest})`;
  return [{ path: 'MAX_PENDING_BYTES', rule }];
}
