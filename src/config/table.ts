/**
 * Every environment variable of `signing-bridge run`, in one table: the loader, the summary
 * logged at start, `run --help` and docs/configuration.md are all read from here.
 */
import type { z } from 'zod';
import type { Group, Variable } from './variable.js';
import { CLASSES } from './variables/classes.js';
import { CONSOLE } from './variables/console.js';
import { FILES } from './variables/files.js';
import { KAFKA, TOPICS } from './variables/kafka.js';
import { KAFKA_SECURITY } from './variables/kafka-security.js';
import { LIMITS } from './variables/limits.js';
import { OBSERVABILITY } from './variables/observability.js';
import { PLATFORM } from './variables/platform.js';
import { PROCESSING } from './variables/processing.js';
import { TRACING } from './variables/tracing.js';

export const CONFIG = [
  ...KAFKA,
  ...KAFKA_SECURITY,
  ...TOPICS,
  ...PLATFORM,
  ...PROCESSING,
  ...CLASSES,
  ...LIMITS,
  ...FILES,
  ...OBSERVABILITY,
  ...TRACING,
] as const satisfies readonly Variable[];

type Row = (typeof CONFIG)[number];
export type VariableName = Row['name'];

/** The parsed environment: one typed value per variable. */
export type Config = { readonly [R in Row as R['name']]: z.output<R['schema']> };

/** The variables that say how to reach Kafka and the topics, shared by every command. */
export const KAFKA_GROUPS = ['Kafka', 'Topics'] as const satisfies readonly Group[];

export const KAFKA_VARIABLES = CONFIG.filter((variable) =>
  (KAFKA_GROUPS as readonly Group[]).includes(variable.group),
);

export type KafkaConfig = {
  readonly [R in Row as R['group'] extends (typeof KAFKA_GROUPS)[number]
    ? R['name']
    : never]: z.output<R['schema']>;
};

/** What `signing-bridge console` reads: the Kafka and Topics variables, and its own. */
export const CONSOLE_VARIABLES = [...KAFKA_VARIABLES, ...CONSOLE];

type ConsoleRow = (typeof CONSOLE)[number];
export type ConsoleConfig = KafkaConfig & {
  readonly [R in ConsoleRow as R['name']]: z.output<R['schema']>;
};
