import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigInvalid } from '../errors.js';
import { renderVariablesTable } from './docs.js';
import { loadConsoleConfig } from './load.js';
import { CONSOLE, parseTokenLines } from './variables/console.js';

const TOKEN = 'a'.repeat(24);
const dir = mkdtempSync(join(tmpdir(), 'console-config-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function problems(env: Record<string, string>): Array<{ path: string; rule: string }> {
  try {
    loadConsoleConfig(env);
  } catch (error) {
    if (error instanceof ConfigInvalid) return error.details.variables.map((v) => ({ ...v }));
    throw error;
  }
  return [];
}

describe('the console tokens file', () => {
  it('when lines give a role, a name and a token, then each is read; comments and blank lines are not', () => {
    const read = parseTokenLines(
      `# on call\n\noperator alice ${TOKEN}\nviewer bob@example.com ${'b'.repeat(30)}\n`,
    );
    expect(read).toEqual({
      tokens: [
        { role: 'operator', name: 'alice', token: TOKEN },
        { role: 'viewer', name: 'bob@example.com', token: 'b'.repeat(30) },
      ],
    });
  });

  it('when a line is wrong, then the problem names its line and never a token', () => {
    const secret = 'c'.repeat(30);
    const read = parseTokenLines(
      [
        `admin carol ${secret}`,
        'viewer dave short',
        `viewer`,
        `operator e!ve ${secret}x`,
        `viewer erin ${TOKEN}`,
        `viewer frank ${TOKEN}`,
      ].join('\n'),
    );
    expect(read).toEqual({
      problems: [
        'line 1: the role must be viewer or operator',
        expect.stringMatching(/^line 2: the token must be at least 24 printable characters/),
        'line 3 must be "<role> <name> <token>"',
        expect.stringMatching(/^line 4: the name must be/),
        'line 6: the same token as an earlier line',
      ],
    });
    expect(JSON.stringify(read)).not.toContain(secret);
  });

  it('when the file holds no token, then it is refused', () => {
    expect(parseTokenLines('# nobody yet\n')).toEqual({ problems: ['holds no token'] });
  });
});

describe('loadConsoleConfig', () => {
  it('when CONSOLE_AUTH is not set, then the console does not start, naming it', () => {
    expect(problems({ KAFKA_BROKERS: 'localhost:9092' })).toEqual([
      { path: 'CONSOLE_AUTH', rule: 'is required' },
    ]);
  });

  it('when tokens are asked for without a file, then CONSOLE_TOKENS_FILE is named', () => {
    expect(problems({ KAFKA_BROKERS: 'localhost:9092', CONSOLE_AUTH: 'token' })).toEqual([
      { path: 'CONSOLE_TOKENS_FILE', rule: 'is required with CONSOLE_AUTH=token' },
    ]);
  });

  it('when the tokens file has a bad line, then start-up names the variable and the line', () => {
    const path = file('bad', `operator alice short\n`);
    const [problem] = problems({
      KAFKA_BROKERS: 'k:9092',
      CONSOLE_AUTH: 'token',
      CONSOLE_TOKENS_FILE: path,
    });
    expect(problem?.path).toBe('CONSOLE_TOKENS_FILE');
    expect(problem?.rule).toMatch(/^line 1: the token must be/);
  });

  it('when everything is right, then the tokens are read and only the path shows when logged', () => {
    const path = file('good', `operator alice ${TOKEN}\n`);
    const config = loadConsoleConfig({
      KAFKA_BROKERS: 'k:9092',
      CONSOLE_AUTH: 'token',
      CONSOLE_TOKENS_FILE: path,
      CONSOLE_INSTANCES: 'http://10.0.0.7:8080, dns:bridge-status.signing.svc:8080',
    });
    expect(config.CONSOLE_TOKENS_FILE?.tokens).toEqual([
      { role: 'operator', name: 'alice', token: TOKEN },
    ]);
    expect(JSON.stringify(config)).not.toContain(TOKEN);
    expect(inspect(config)).not.toContain(TOKEN);
    expect(config.CONSOLE_INSTANCES).toEqual([
      'http://10.0.0.7:8080',
      'dns:bridge-status.signing.svc:8080',
    ]);
    expect(config.CONSOLE_PORT).toBe(8090);
    expect(config.CONSOLE_REFRESH).toBe(2_000);
    expect(config.CONSOLE_PROXY_USER_HEADER).toBe('x-forwarded-email');
  });

  it('when an instance is neither a base URL nor a dns: name, then it is refused', () => {
    expect(
      problems({
        KAFKA_BROKERS: 'k:9092',
        CONSOLE_AUTH: 'proxy',
        CONSOLE_INSTANCES: 'bridge:8080/status',
      }),
    ).toEqual([{ path: 'CONSOLE_INSTANCES', rule: expect.stringMatching(/base URLs or dns:/) }]);
  });
});

describe('docs/console.md', () => {
  it("when the console's variables change, then the doc's table says what the table says", () => {
    const doc = readFileSync(new URL('../../docs/console.md', import.meta.url), 'utf8');
    const start = doc.indexOf('<!-- console-variables');
    const table = doc
      .slice(doc.indexOf('\n', start) + 1, doc.indexOf('<!-- end console-variables -->'))
      .trim();
    expect(table, 'docs/console.md: copy the table renderVariablesTable(CONSOLE) makes').toBe(
      renderVariablesTable(CONSOLE),
    );
  });
});
