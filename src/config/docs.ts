/** docs/configuration.md, rendered from the CONFIG table (`npm run docs:config` writes it). */
import { ESSENTIAL_POINTERS, ESSENTIALS } from './essentials.js';
import { CONFIG_FILE_MAX_BYTES } from './file-values.js';
import { CONFIG } from './table.js';
import { GROUPS, type Variable } from './variable.js';

export const CONFIG_DOC_PATH = 'docs/configuration.md';

const TITLE = `# Configuration

<!-- Generated from the CONFIG table in src/config by \`npm run docs:config\`. Do not edit. -->
`;

export const ESSENTIALS_HEADING = '## What most deployments set';

const INTRO = `## How the variables are read

\`signing-bridge run\` reads its configuration from environment variables only. An unset or
empty variable takes its default; a variable without a default is required. Start-up stops
with one message that names every bad variable, and \`signing-bridge run --check-config\` runs
that check alone. \`signing-bridge run --help\` lists the same variables.

A variable that begins like one of these (\`SIGNING_\`, \`KAFKA_\`, \`MAX_\`, \`FILE_\`, ... : the
first word of any name below) but is none of them is most likely misspelt (\`SIGNING_RPSS\`,
\`MAX_INFLIGHT\`): \`run\` logs a warning naming it and the variable it probably meant, and
\`--check-config\` refuses it. \`HTTP_PROXY\` and the variables Kubernetes defines for each Service
(\`<NAME>_SERVICE_HOST\`, \`<NAME>_PORT...\`) are left alone. A variable of an earlier release that
the bridge no longer reads (most became fixed values, stated in [design.md](design.md)) is named
the same way, with what became of it.


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
  return `${TITLE}\n${essentials()}\n\n${INTRO}\n${tables}\n`;
}

/** The handful most deployments set, first: the rest of the doc is for when a default does not fit. */
function essentials(): string {
  const rows = ESSENTIALS.map(({ name, why }) => {
    const variable = CONFIG.find((v) => v.name === name) as Variable;
    return `| \`${name}\` | ${shownDefault(variable)} | ${escapeCell(why)} |`;
  });
  return [
    ESSENTIALS_HEADING,
    '',
    'The first four are required; most deployments set some of the others too, and leave every other variable at its default.',
    '',
    '| Variable | Default | Why |',
    '|---|---|---|',
    ...rows,
    '',
    ...ESSENTIAL_POINTERS.map((pointer) => `- ${pointer}`),
  ].join('\n');
}

/** A table of variables as configuration.md's sections have them (docs/console.md's, say). */
export function renderVariablesTable(variables: readonly Variable[]): string {
  return ['| Variable | Default | Description |', '|---|---|---|', ...variables.map(row)].join(
    '\n',
  );
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
