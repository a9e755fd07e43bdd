/**
 * Limits on the shape of a parsed command, checked before it is validated: schema validation
 * collects issues per element, so 200,000 empty objects in one array (600 KB of JSON) would
 * otherwise cost gigabytes of issues. The walk is iterative: depth is what it bounds.
 */
import type { LimitBreach } from './record-limits.js';

export interface JsonLimits {
  /** Nesting of arrays and objects. */
  readonly maxDepth: number;
  readonly maxArrayItems: number;
  /** Values of every kind in the whole document (objects, arrays, strings, numbers, ...). */
  readonly maxNodes: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = {
  maxDepth: 32,
  maxArrayItems: 1_000,
  maxNodes: 50_000,
};

interface Pending {
  readonly value: unknown;
  readonly path: string;
  readonly depth: number;
}

/** The first limit the value breaks, with the path where; undefined when it keeps them all. */
export function jsonShapeBreach(value: unknown, limits: JsonLimits): LimitBreach | undefined {
  const stack: Pending[] = [{ value, path: '', depth: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop() as Pending;
    if (++nodes > limits.maxNodes) {
      return { limit: 'COMMAND_MAX_NODES', max: limits.maxNodes, actual: nodes, path: at(path) };
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= limits.maxDepth) {
      return {
        limit: 'COMMAND_MAX_DEPTH',
        max: limits.maxDepth,
        actual: depth + 1,
        path: at(path),
      };
    }
    if (Array.isArray(current)) {
      if (current.length > limits.maxArrayItems) {
        const actual = current.length;
        return {
          limit: 'COMMAND_MAX_ARRAY_ITEMS',
          max: limits.maxArrayItems,
          actual,
          path: at(path),
        };
      }
      for (const [i, item] of current.entries()) {
        stack.push({ value: item, path: `${path}[${i}]`, depth: depth + 1 });
      }
    } else {
      for (const [key, item] of Object.entries(current)) {
        stack.push({ value: item, path: path ? `${path}.${key}` : key, depth: depth + 1 });
      }
    }
  }
  return undefined;
}

// A path names object keys, which can be as long as the value; what it reports stays short.
const MAX_PATH_CHARS = 200;

function at(path: string): string {
  if (path.length > MAX_PATH_CHARS) return `${path.slice(0, MAX_PATH_CHARS)}…`;
  return path || '(value)';
}
