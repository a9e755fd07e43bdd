/**
 * JSON as the platform writes it. Its ids are Java `Long`s, 19-digit numbers beyond 2^53, which
 * `JSON.parse` silently rounds and `JSON.stringify` cannot write from a string. Reading keeps
 * every integer that a JavaScript number cannot hold exactly as its decimal string; writing puts
 * the strings at the places a schema types as `LongId` back on the wire as bare numbers.
 */

/**
 * 2^53 has 16 digits, and a number literal starts the text or follows `:`, `,` or `[`: a text
 * without such a run of 16 digits holds no unsafe integer (ids written as strings do not count).
 */
const LONG_NUMBER_START = /(?:^|[:,[])\s*-?\d{16}/;
/**
 * In valid JSON every digit outside a string belongs to a number, so scanning strings and
 * numbers left to right finds every number literal. Strings are matched unrolled (a run of
 * plain characters, then escapes) so a long string costs no backtracking.
 */
const STRING_OR_NUMBER = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/gs;
const INTEGER = /^-?\d+$/;
/** A decimal integer as JSON may write it: no leading zero, no plus sign. */
const JSON_INTEGER = /^-?(?:0|[1-9]\d*)$/;

/**
 * `JSON.parse`, except that an integer literal beyond ±(2^53 - 1) comes back as its exact
 * decimal string. Fractions and exponents stay numbers (they are not ids). Throws
 * `SyntaxError` for what is not JSON, like `JSON.parse`.
 */
export function readJson(text: string): unknown {
  // Parsed first: it refuses what is not JSON, so the scan below only ever sees valid JSON.
  const value: unknown = JSON.parse(text);
  if (!LONG_NUMBER_START.test(text)) return value;
  return JSON.parse(text.replace(STRING_OR_NUMBER, quoteUnsafeInteger));
}

function quoteUnsafeInteger(token: string): string {
  if (!INTEGER.test(token) || Number.isSafeInteger(Number(token))) return token;
  return `"${token}"`;
}

/**
 * `JSON.stringify` of plain data, except that a decimal string at one of `numberPaths` is
 * written as a bare number. A path names object keys joined by dots, `*` standing for every
 * element of an array: `signatory.actions.*.corpSealIds.*`.
 */
export function writeJson(value: unknown, numberPaths: ReadonlySet<string>): string {
  // No number path (remind, approve, initiate...): nothing to write otherwise.
  if (numberPaths.size === 0) return JSON.stringify(value) ?? 'null';
  return write(value, placesOf(numberPaths)) ?? 'null';
}

/** The number paths as a tree of keys (`*` for every element): what lies where in a value. */
interface Place {
  /** A number path ends here. */
  number: boolean;
  readonly below: Map<string, Place>;
}

const placesOfPaths = new WeakMap<ReadonlySet<string>, Place>();

/** The tree of the number paths, made once per set. */
function placesOf(numberPaths: ReadonlySet<string>): Place {
  let root = placesOfPaths.get(numberPaths);
  if (root === undefined) {
    root = { number: false, below: new Map() };
    for (const path of numberPaths) {
      let place = root;
      for (const key of path === '' ? [] : path.split('.')) {
        let next = place.below.get(key);
        if (next === undefined) {
          next = { number: false, below: new Map() };
          place.below.set(key, next);
        }
        place = next;
      }
      place.number = true;
    }
    placesOfPaths.set(numberPaths, root);
  }
  return root;
}

function write(value: unknown, place: Place | undefined): string | undefined {
  // No number path here or below: JSON.stringify writes plain data as the walk would, in one
  // call (of a draft's request, only the way to its corpSealIds is walked).
  if (place === undefined) return JSON.stringify(value);
  if (typeof value === 'string' && place.number && JSON_INTEGER.test(value)) return value;
  if (Array.isArray(value)) {
    const element = place.below.get('*');
    // Array.from visits holes too: JSON writes them as null.
    return `[${Array.from(value, (item) => write(item, element) ?? 'null').join(',')}]`;
  }
  if (isPlainObject(value)) {
    const members: string[] = [];
    for (const [key, item] of Object.entries(value)) {
      const text = write(item, place.below.get(key));
      if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${members.join(',')}}`;
  }
  // Leaves, and objects with their own JSON form (a Date), as JSON.stringify writes them.
  return JSON.stringify(value);
}

export function childPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
