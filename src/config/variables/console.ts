/**
 * The variables of `signing-bridge console` (docs/console.md), besides the Kafka and Topics ones
 * every operator command reads. Not part of `run`'s table: the bridge never reads them.
 */
import { z } from 'zod';
import type { InvalidField } from '../../errors.js';
import { FileText, optional, textFile } from '../file-values.js';
import { duration, integer, listenPort, oneOf, type TextSchema, text } from '../parsers.js';
import type { Variable } from '../variable.js';

export const CONSOLE_ROLES = ['viewer', 'operator'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

/** One line of CONSOLE_TOKENS_FILE: who holds the token, and what they may do. */
export interface ConsoleToken {
  readonly role: ConsoleRole;
  readonly name: string;
  readonly token: string;
}

export const TOKEN_MIN_LENGTH = 24;
const NAME = /^[A-Za-z0-9._@+-]{1,64}$/;
const TOKEN = /^[\x21-\x7e]+$/;

/**
 * The tokens file's lines: `<role> <name> <token>`, `#` comments and blank lines ignored. Problems
 * name the line, never a token.
 */
export function parseTokenLines(text: string): { tokens: ConsoleToken[] } | { problems: string[] } {
  const tokens: ConsoleToken[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const at = `line ${index + 1}`;
    const [role, name, token, ...rest] = line.split(/\s+/);
    if (token === undefined || rest.length > 0) {
      problems.push(`${at} must be "<role> <name> <token>"`);
    } else if (!(CONSOLE_ROLES as readonly string[]).includes(role as string)) {
      problems.push(`${at}: the role must be viewer or operator`);
    } else if (!NAME.test(name as string)) {
      problems.push(`${at}: the name must be 1 to 64 letters, digits or . _ @ + -`);
    } else if (token.length < TOKEN_MIN_LENGTH || !TOKEN.test(token)) {
      problems.push(
        `${at}: the token must be at least ${TOKEN_MIN_LENGTH} printable characters (e.g. openssl rand -hex 24)`,
      );
    } else if (seen.has(token)) {
      problems.push(`${at}: the same token as an earlier line`);
    } else {
      seen.add(token);
      tokens.push({ role: role as ConsoleRole, name: name as string, token });
    }
  }
  if (problems.length === 0 && tokens.length === 0) problems.push('holds no token');
  return problems.length > 0 ? { problems } : { tokens };
}

/** The file named, read at start, its lines parsed; a path that is empty reads as not set. */
const tokensFile: TextSchema<ConsoleTokens | undefined> = optional(
  textFile.transform((file, context) => {
    const read = parseTokenLines(file.text);
    if ('problems' in read) {
      for (const message of read.problems) context.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    return new ConsoleTokens(file.path, read.tokens);
  }),
);

/** The tokens, read from a file; serialised or inspected, only its path shows. */
export class ConsoleTokens extends FileText {
  constructor(
    path: string,
    readonly tokens: readonly ConsoleToken[],
  ) {
    super(path, '');
  }
}

/** Comma-separated, each trimmed; empty entries dropped. */
const names: TextSchema<string[]> = z.string().transform((value) =>
  value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== ''),
);

/**
 * `http://host:port` base URLs (the bridge's HTTP_PORT speaks plain HTTP), or `dns:<name>:<port>`:
 * every address a name resolves to.
 */
const instances: TextSchema<string[]> = names.pipe(
  z
    .array(
      z
        .string()
        .regex(
          /^(http:\/\/[^\s/?#]+|dns:[A-Za-z0-9.-]{1,253}:\d{1,5})$/,
          'must be http://host:port base URLs or dns:<name>:<port>, separated by commas',
        ),
    )
    .max(64, 'must name at most 64 instances'),
);

const headerName: TextSchema<string> = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9-]{1,100}$/, 'must be an HTTP header name')
  .transform((value) => value.toLowerCase());

export const CONSOLE = [
  {
    name: 'CONSOLE_AUTH',
    group: 'Console',
    schema: oneOf(['token', 'proxy']),
    description:
      'How people sign in: `token` (each has a token from CONSOLE_TOKENS_FILE, and a role) or `proxy` (an authenticating proxy in front, such as oauth2-proxy, names them in CONSOLE_PROXY_USER_HEADER). Required: the console does not start unauthenticated.',
  },
  {
    name: 'CONSOLE_TOKENS_FILE',
    group: 'Console',
    schema: tokensFile,
    default: '',
    secret: true,
    description:
      'With CONSOLE_AUTH=token: a file (a mounted Secret) of lines `<role> <name> <token>`: role viewer or operator, the name audit lines give, a token of at least 24 characters.',
  },
  {
    name: 'CONSOLE_PROXY_USER_HEADER',
    group: 'Console',
    schema: headerName,
    default: 'X-Forwarded-Email',
    description:
      'With CONSOLE_AUTH=proxy: the request header that names the person (oauth2-proxy sets X-Forwarded-Email and X-Forwarded-User). Only the proxy must reach the console: listen on 127.0.0.1 beside it.',
  },
  {
    name: 'CONSOLE_PROXY_GROUPS_HEADER',
    group: 'Console',
    schema: headerName,
    default: 'X-Forwarded-Groups',
    description: "With CONSOLE_AUTH=proxy: the header with the person's groups, comma-separated.",
  },
  {
    name: 'CONSOLE_OPERATORS',
    group: 'Console',
    schema: names,
    default: '',
    description:
      'With CONSOLE_AUTH=proxy: who is an operator, comma-separated: a person as the user header names them, or `group:<name>`. Everyone else the proxy lets in is a viewer.',
  },
  {
    name: 'CONSOLE_PORT',
    group: 'Console',
    schema: listenPort,
    default: '8090',
    description: "The console's own port (never the bridge's HTTP_PORT); 0 takes a free one.",
  },
  {
    name: 'CONSOLE_HOST',
    group: 'Console',
    schema: text,
    default: '0.0.0.0',
    description: 'The address it listens on; 127.0.0.1 behind a proxy in the same pod.',
  },
  {
    name: 'CONSOLE_INSTANCES',
    group: 'Console',
    schema: instances,
    default: '',
    description:
      "Where the bridge's instances answer /status: base URLs (`http://10.0.0.7:8080`), or `dns:<name>:<port>` for every address a name resolves to (a headless Service), comma-separated, 64 at most. Empty: the group page shows what Kafka says only.",
  },
  {
    name: 'CONSOLE_REFRESH',
    group: 'Console',
    schema: duration({ min: 500, max: 60_000 }),
    default: '2s',
    description: 'How often the group page is refreshed while someone looks at it.',
  },
  {
    name: 'CONSOLE_SCAN_RECORDS',
    group: 'Console',
    schema: integer({ min: 1_000, max: 10_000_000 }),
    default: '200000',
    description:
      "A search's bound: the newest records it reads of each partition it looks in (a bizId's story: its partition of every topic). Older ones are read page by page on request.",
  },
  {
    name: 'CONSOLE_REPLAY_LIMIT',
    group: 'Console',
    schema: integer({ min: 1, max: 100 }),
    default: '3',
    description:
      'A dead letter whose record was already sent back this many times (it came back each time) is not sent back again from the console.',
  },
  {
    name: 'CONSOLE_SESSION',
    group: 'Console',
    schema: duration({ min: 60_000, max: 7 * 86_400_000 }),
    default: '8h',
    description: 'How long a sign-in with a token lasts.',
  },
] as const satisfies readonly Variable[];

/** Rules between the console's variables. */
export function consoleChecks(
  values: Partial<Record<string, unknown>>,
  invalid: ReadonlySet<string>,
): InvalidField[] {
  if (values.CONSOLE_AUTH === 'token' && values.CONSOLE_TOKENS_FILE === undefined) {
    if (invalid.has('CONSOLE_TOKENS_FILE')) return [];
    return [{ path: 'CONSOLE_TOKENS_FILE', rule: 'is required with CONSOLE_AUTH=token' }];
  }
  return [];
}
