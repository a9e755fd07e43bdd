/**
 * The configuration as it may be logged at start or printed by `--check-config`: secrets masked,
 * files shown by their path (never their content), nothing else hidden.
 */
import { FileText } from './file-values.js';
import { CONFIG, type Config } from './table.js';
import type { Variable } from './variable.js';

const MASK = '***';

/** `table`: the variables `config` was read by (run's CONFIG, or the console's). */
export function configSummary(
  config: Config | Readonly<Record<string, unknown>>,
  table: readonly Variable[] = CONFIG,
): Record<string, unknown> {
  return Object.fromEntries(
    table.map((variable) => {
      const value: unknown = (config as Record<string, unknown>)[variable.name];
      if ('secret' in variable && variable.secret) return [variable.name, MASK];
      return [variable.name, value instanceof FileText ? value.path : value];
    }),
  );
}
