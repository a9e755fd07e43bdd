import type { TextSchema } from './parsers.js';

/** Sections of docs/configuration.md and of `run --help`, in this order. */
export const GROUPS = [
  'Kafka',
  'Topics',
  'Signing platform',
  'Processing',
  'Limits',
  'Files',
  'Observability',
  'Tracing',
] as const;
/** `Console` is the group of `signing-bridge console`'s own table (variables/console.ts), not run's. */
export type Group = (typeof GROUPS)[number] | 'Console';

/** One environment variable: how its text is read, its default, what it is for. */
export interface Variable {
  readonly name: string;
  readonly group: Group;
  readonly schema: TextSchema;
  /** The text used when the variable is unset or empty; a variable without one is required. */
  readonly default?: string;
  /** Never logged or shown: the summary masks it. */
  readonly secret?: true;
  readonly description: string;
}
