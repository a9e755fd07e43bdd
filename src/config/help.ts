/** The environment part of `signing-bridge run --help`, from the CONFIG table. */
import { CONFIG } from './table.js';
import { GROUPS, type Group, type Variable } from './variable.js';

export function renderConfigHelp(
  groups: readonly Group[] = GROUPS,
  table: readonly Variable[] = CONFIG,
): string {
  const width = Math.max(...table.map((v) => v.name.length));
  const sections = groups.map((group) => {
    const lines = table
      .filter((v) => v.group === group)
      .flatMap((v) => [`  ${v.name.padEnd(width)}  ${shownDefault(v)}`, `      ${v.description}`]);
    return [`${group}:`, ...lines].join('\n');
  });
  return `${sections.join('\n\n')}\n`;
}

function shownDefault(variable: Variable): string {
  const secret = variable.secret ? ' (secret)' : '';
  if (variable.default === undefined) return `required${secret}`;
  return `default: ${variable.default === '' ? '(empty)' : variable.default}${secret}`;
}
