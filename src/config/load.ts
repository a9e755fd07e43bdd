/**
 * Reads the environment against the CONFIG table. Every variable is checked before any error is
 * raised, so one message names every bad variable; values never appear in it.
 */
import type { z } from 'zod';
import { ConfigInvalid, type InvalidField } from '../errors.js';
import { crossCheck } from './cross-checks.js';
import {
  CONFIG,
  CONSOLE_VARIABLES,
  type Config,
  type ConsoleConfig,
  KAFKA_VARIABLES,
  type KafkaConfig,
  type VariableName,
} from './table.js';
import type { Variable } from './variable.js';
import { consoleChecks } from './variables/console.js';

type Env = Readonly<Record<string, string | undefined>>;

export function loadConfig(env: Env): Config {
  return loadVariables(env, CONFIG) as Config;
}

/** Only the Kafka and Topics variables: what the operator commands need to reach the topics. */
export function loadKafkaConfig(env: Env): KafkaConfig {
  return loadVariables(env, KAFKA_VARIABLES) as KafkaConfig;
}

/** The Kafka and Topics variables, and the console's own (`signing-bridge console`). */
export function loadConsoleConfig(env: Env): ConsoleConfig {
  return loadVariables(env, CONSOLE_VARIABLES, consoleChecks) as ConsoleConfig;
}

type Checks = (
  values: Partial<Record<string, unknown>>,
  invalid: ReadonlySet<string>,
) => InvalidField[];

function loadVariables(env: Env, variables: readonly Variable[], more?: Checks): unknown {
  const values: Partial<Record<VariableName, unknown>> = {};
  const problems: InvalidField[] = [];
  for (const variable of variables) {
    const name = variable.name as VariableName;
    const text = given(env[name]) ?? ('default' in variable ? variable.default : undefined);
    if (text === undefined) {
      problems.push({ path: name, rule: 'is required' });
      continue;
    }
    const parsed = variable.schema.safeParse(text);
    if (parsed.success) values[name] = parsed.data;
    else problems.push({ path: name, rule: rulesOf(parsed.error) });
  }
  const invalid = new Set(problems.map((problem) => problem.path));
  problems.push(...crossCheck(values, invalid), ...(more?.(values, invalid) ?? []));
  if (problems.length > 0) throw configInvalid(problems);
  // Every variable asked for was read by its own schema above.
  return values;
}

/** Unset and empty (or blank) are the same: the default applies. */
function given(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function rulesOf(error: z.ZodError): string {
  return [...new Set(error.issues.map((issue) => issue.message))].join(', ');
}

function configInvalid(problems: InvalidField[]): ConfigInvalid {
  const list = problems.map((p) => `${p.path} ${p.rule}`).join('; ');
  const count = problems.length === 1 ? '1 variable' : `${problems.length} variables`;
  return new ConfigInvalid(`invalid configuration (${count}): ${list}`, {
    details: { variables: problems },
  });
}
