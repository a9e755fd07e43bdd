export { CONFIG_DOC_PATH, renderConfigDoc, renderVariablesTable } from './docs.js';
export { renderConfigHelp } from './help.js';
export { loadConfig, loadConsoleConfig, loadKafkaConfig } from './load.js';
export { configSummary } from './summary.js';
export {
  CONFIG,
  CONSOLE_VARIABLES,
  type Config,
  type ConsoleConfig,
  KAFKA_GROUPS,
  type KafkaConfig,
  type VariableName,
} from './table.js';
export { describeUnknown, type UnknownVariable, unknownVariables } from './unknown-variables.js';
export type { Group, Variable } from './variable.js';
export {
  CONSOLE_ROLES,
  type ConsoleRole,
  type ConsoleToken,
  ConsoleTokens,
} from './variables/console.js';
