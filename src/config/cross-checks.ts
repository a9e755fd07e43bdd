/** Rules between variables: each is checked once its variables are valid on their own. */
import { defaultBridgeSettings } from '../consumers/settings.js';
import type { InvalidField } from '../errors.js';
import { kafkaChecks } from './kafka-checks.js';
import type { VariableName } from './table.js';
import { classChecks } from './variables/classes.js';

interface PairRule {
  readonly larger: VariableName;
  readonly smaller: VariableName;
}

/** A record's key and headers have fixed limits; only its value's is a variable. */
const FIXED_RECORD = defaultBridgeSettings().limits.record;

/** `larger` must be at least `smaller`. */
export const AT_LEAST: readonly PairRule[] = [
  { larger: 'MAX_PENDING', smaller: 'MAX_IN_FLIGHT' },
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
  const { RECORD_MAX_VALUE_BYTES: value, MAX_PENDING_BYTES: budget } = values;
  if (typeof budget !== 'number' || typeof value !== 'number') return [];
  const largest = FIXED_RECORD.maxKeyBytes + value + FIXED_RECORD.maxHeaderBytes;
  if (budget >= largest) return [];
  const rule = `must be at least the largest record the limits admit (${largest}: RECORD_MAX_VALUE_BYTES, a key of ${FIXED_RECORD.maxKeyBytes} and headers of ${FIXED_RECORD.maxHeaderBytes} bytes)`;
  return [{ path: 'MAX_PENDING_BYTES', rule }];
}
