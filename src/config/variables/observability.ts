import { listenPort, oneOf, text } from '../parsers.js';
import type { Variable } from '../variable.js';

export const OBSERVABILITY = [
  {
    name: 'LOG_LEVEL',
    group: 'Observability',
    schema: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    description: 'Least severe level logged.',
  },
  {
    name: 'HTTP_PORT',
    group: 'Observability',
    schema: listenPort,
    default: '8080',
    description:
      'Port of /healthz (alive), /readyz (consuming) and /metrics (Prometheus), 1 to 65535; 0 = no health and metrics server at all (probes then need another way in).',
  },
  {
    name: 'HTTP_HOST',
    group: 'Observability',
    schema: text,
    default: '0.0.0.0',
    description: 'Address the health and metrics server listens on.',
  },
] as const satisfies readonly Variable[];
