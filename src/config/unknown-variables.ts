/**
 * Variables that look like the bridge's but are none of them: a name that starts with the first
 * word of one of ours (SIGNING_, KAFKA_, MAX_, FILE_, ...) yet is not in the table. Misspelt
 * (SIGNING_RPSS, MAX_INFLIGHT), it would be ignored and the default silently in force; `run`
 * warns about it, `run --check-config` refuses it.
 */
import { REMOVED_VARIABLES } from './removed-variables.js';
import { CONFIG } from './table.js';

export interface UnknownVariable {
  readonly name: string;
  /** The variable of the table it most likely meant, when one is close, or its replacement. */
  readonly suggestion?: string;
  /** Set when the name was one of ours and is no longer: what became of it. */
  readonly removed?: string;
}

const KNOWN: ReadonlySet<string> = new Set(CONFIG.map((variable) => variable.name));
const PREFIXES: readonly string[] = [
  ...new Set(CONFIG.map(({ name }) => name.slice(0, name.indexOf('_') + 1))),
];

/**
 * Read by other software, not misspellings of ours: a proxy; what Kubernetes defines for every
 * Service of the namespace (a Service named `kafka` gives KAFKA_SERVICE_HOST, KAFKA_PORT,
 * KAFKA_PORT_9092_TCP_ADDR, ...); and the rest of what OpenTelemetry's OTLP exporter reads of
 * the environment itself once tracing is on (compression, TLS files, traces-only settings).
 */
const OTHER_SOFTWARE = [
  /^HTTP_PROXY$/,
  /_SERVICE_(HOST|PORT)(_[A-Z0-9_]+)?$/,
  /_PORT(_\d+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?$/,
  /^OTEL_EXPORTER_OTLP_(TRACES_)?(ENDPOINT|HEADERS|TIMEOUT|COMPRESSION|CERTIFICATE|CLIENT_CERTIFICATE|CLIENT_KEY)$/,
];

/** A suggestion is made for a name within this many edits of a known one. */
const MAX_EDITS = 3;
/** Longer names get no suggestion: comparing them costs more and helps nobody. */
const MAX_SUGGESTED_LENGTH = 100;

export function unknownVariables(
  env: Readonly<Record<string, string | undefined>>,
): UnknownVariable[] {
  return Object.keys(env)
    .filter((name) => {
      const upper = name.toUpperCase();
      if (KNOWN.has(name)) return false;
      // A removed variable's prefix may be no current variable's (BREAKER_).
      if (Object.hasOwn(REMOVED_VARIABLES, upper)) return true;
      if (!PREFIXES.some((prefix) => upper.startsWith(prefix))) return false;
      return !OTHER_SOFTWARE.some((pattern) => pattern.test(upper));
    })
    .sort()
    .map((name) => {
      const removed = REMOVED_VARIABLES[name.toUpperCase()];
      if (removed) {
        const { replacement, note } = removed;
        return replacement === undefined
          ? { name, removed: note }
          : { name, suggestion: replacement, removed: note };
      }
      const suggestion = closestKnown(name);
      return suggestion === undefined ? { name } : { name, suggestion };
    });
}

/**
 * `unknown variables (2), not read: SIGNING_RPSS (did you mean SIGNING_RPS?), FILE_X`; a removed
 * variable is named with what to set instead: `SIGNING_BODY_TIMEOUT_MS (removed: set
 * SIGNING_CALL_TIMEOUT_MS instead; one deadline now ...)`.
 */
export function describeUnknown(unknown: readonly UnknownVariable[]): string {
  const names = unknown.map(({ name, suggestion, removed }) => {
    if (removed !== undefined) {
      const instead = suggestion === undefined ? '' : `set ${suggestion} instead; `;
      return `${name} (removed: ${instead}${removed})`;
    }
    return suggestion === undefined ? name : `${name} (did you mean ${suggestion}?)`;
  });
  return `unknown variables (${unknown.length}), not read: ${names.join(', ')}`;
}

function closestKnown(name: string): string | undefined {
  if (name.length > MAX_SUGGESTED_LENGTH) return undefined;
  let best: { name: string; edits: number } | undefined;
  for (const known of KNOWN) {
    const edits = editDistance(name.toUpperCase(), known);
    if (edits <= MAX_EDITS && (best === undefined || edits < best.edits)) {
      best = { name: known, edits };
    }
  }
  return best?.name;
}

/** Levenshtein distance: insertions, deletions and substitutions of one character. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
