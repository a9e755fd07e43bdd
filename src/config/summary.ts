/** The configuration as it may be logged at start: secrets masked, nothing else hidden. */
import { CONFIG, type Config } from './table.js';

const MASK = '***';

export function configSummary(config: Config): Record<string, unknown> {
  return Object.fromEntries(
    CONFIG.map((variable) => [
      variable.name,
      'secret' in variable && variable.secret ? MASK : config[variable.name],
    ]),
  );
}
