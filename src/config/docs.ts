/** docs/configuration.md, rendered from the CONFIG table (`npm run docs:config` writes it). */
import { CONFIG_FILE_MAX_BYTES } from './file-values.js';
import { CONFIG } from './table.js';
import { GROUPS, type Variable } from './variable.js';

export const CONFIG_DOC_PATH = 'docs/configuration.md';

const INTRO = `# Configuration

<!-- Generated from the CONFIG table in src/config by \`npm run docs:config\`. Do not edit. -->

\`signing-bridge run\` reads its configuration from environment variables only. An unset or
empty variable takes its default; a variable without a default is required. Start-up stops
with one message that names every bad variable, and \`signing-bridge run --check-config\` runs
that check alone. \`signing-bridge run --help\` lists the same variables.

Secret variables are never logged: the configuration summary logged at start (and printed by
\`--check-config\`) masks them. A variable ending in \`_FILE\` names a file that is read at start
(at most ${CONFIG_FILE_MAX_BYTES / 1_048_576} MiB); the summary shows its path, never its content. A secret can be given either
inline or as a file, not both.

To connect to a secured cluster (TLS, SASL), see the Kafka variables below and
[deployment.md](deployment.md#a-secured-kafka-cluster).
`;

export function renderConfigDoc(): string {
  const sections = GROUPS.map((group) => {
    const rows = CONFIG.filter((v) => v.group === group).map(row);
    return [`## ${group}`, '', '| Variable | Default | Description |', '|---|---|---|', ...rows];
  });
  const tables = sections.map((lines) => lines.join('\n')).join('\n\n');
  return `${INTRO}\n${tables}\n`;
}

function row(variable: Variable): string {
  const secret = variable.secret ? ' Secret: never logged.' : '';
  const description = escapeCell(variable.description + secret);
  return `| \`${variable.name}\` | ${shownDefault(variable)} | ${description} |`;
}

function shownDefault(variable: Variable): string {
  if (variable.default === undefined) return '**required**';
  if (variable.default === '') return '*(empty)*';
  return `\`${escapeCell(variable.default)}\``;
}

/** Table cells: a pipe would end the cell, an angle bracket would open an HTML tag. */
function escapeCell(cell: string): string {
  return cell.replaceAll('|', '\\|').replaceAll('<', '&lt;');
}
