import type { OperationName } from '../../schemas/platform/operations.js';
import type { FaultConfig, InjectedError } from './config.js';

export type RandomFault = InjectedError | 'hang' | 'reset';

/**
 * Draws at most one fault for a call of `operation` from its own rates, else from the `*`
 * entry's. One draw decides: [0, reset) resets, then hang, then error, the rest passes. No draw
 * is made for an operation without rates, so an injected `random` sees only the draws that count.
 */
export function drawFault(
  operations: FaultConfig['operations'],
  operation: OperationName,
  random: () => number,
): RandomFault | undefined {
  const rates = operations?.[operation] ?? operations?.['*'];
  if (rates === undefined) return undefined;
  const draw = random();
  let bound = rates.resetRate ?? 0;
  if (draw < bound) return 'reset';
  bound += rates.hangRate ?? 0;
  if (draw < bound) return 'hang';
  bound += rates.errorRate ?? 0;
  if (draw < bound) return rates.error ?? 'http503';
  return undefined;
}
