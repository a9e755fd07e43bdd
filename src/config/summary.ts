/**
 * The configuration as it may be logged at start or printed by `--check-config`: secrets masked,
 * files shown by their path (never their content), nothing else hidden.
 */
import { FileText } from './file-values.js';
import { CONFIG, type Config } from './table.js';

const MASK = '***';

export function configSummary(config: Config): Record<string, unknown> {
  return Object.fromEntries(
    CONFIG.map((variable) => {
      const value: unknown = config[variable.name];
      if ('secret' in variable && variable.secret) return [variable.name, MASK];
      return [variable.name, value instanceof FileText ? value.path : value];
    }),
  );
}
