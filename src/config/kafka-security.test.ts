import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigInvalid } from '../errors.js';
import { kafkaClientSettings } from './component-settings.js';
import { CONFIG_FILE_MAX_BYTES } from './file-values.js';
import { loadConfig } from './load.js';
import { configSummary } from './summary.js';

// A CA, and a client certificate it signed with that certificate's key (testdata/, made once
// with keytool; valid for a century).
const testdata = (name: string) =>
  readFileSync(new URL(`testdata/${name}`, import.meta.url), 'utf8');
const CA = testdata('ca.pem');
const CERT = testdata('client.pem');
const KEY = testdata('client-key.pem');
const ENCRYPTED_KEY = createPrivateKey(KEY).export({
  type: 'pkcs8',
  format: 'pem',
  cipher: 'aes-256-cbc',
  passphrase: 'key-pass',
}) as string;

const REQUIRED = {
  KAFKA_BROKERS: 'kafka-1:9093',
  SIGNING_API_BASE_URL: 'http://127.0.0.1:9300',
  SIGNING_APP_TOKEN: 'demo-app-token',
  SIGNING_APP_SECRET: 'demo-app-secret',
};

const dir = mkdtempSync(join(tmpdir(), 'kafka-security-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
/** A new file with this content; its path. */
function file(content: string | Buffer): string {
  files += 1;
  const path = join(dir, `file-${files}`);
  writeFileSync(path, content);
  return path;
}

function problems(env: Record<string, string>) {
  try {
    loadConfig({ ...REQUIRED, ...env });
  } catch (error) {
    if (!(error instanceof ConfigInvalid)) throw error;
    return { message: error.message, variables: error.details.variables };
  }
  throw new Error('expected ConfigInvalid');
}
const named = (env: Record<string, string>) =>
  problems(env)
    .variables.map((v) => v.path)
    .sort();

const SCRAM = { KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'bridge' };

describe('Kafka security settings', () => {
  it('when nothing is set, then the client connects in plaintext without a login', () => {
    const settings = kafkaClientSettings(loadConfig(REQUIRED));
    expect(settings).toEqual({
      brokers: ['kafka-1:9093'],
      clientId: 'signing-bridge',
      tls: undefined,
      sasl: undefined,
    });
  });

  it('when TLS with a CA, a client certificate and SCRAM are set from files, then the client gets their contents', () => {
    const config = loadConfig({
      ...REQUIRED,
      ...SCRAM,
      KAFKA_TLS: 'true',
      KAFKA_TLS_CA_FILE: file(CA),
      KAFKA_TLS_CERT_FILE: file(CERT),
      KAFKA_TLS_KEY_FILE: file(ENCRYPTED_KEY),
      KAFKA_TLS_KEY_PASSWORD_FILE: file('key-pass\n'),
      KAFKA_SASL_PASSWORD_FILE: file('sasl pass \r\n'),
    });
    expect(kafkaClientSettings(config)).toMatchObject({
      tls: {
        ca: CA,
        clientCertificate: { cert: CERT, key: ENCRYPTED_KEY, passphrase: 'key-pass' },
      },
      // One final line break is dropped; spaces are the password's own.
      sasl: { mechanism: 'scram-sha-512', username: 'bridge', password: 'sasl pass ' },
    });
  });

  it('when passwords are set inline, then they are taken exactly as set', () => {
    const config = loadConfig({
      ...REQUIRED,
      ...SCRAM,
      KAFKA_SASL_PASSWORD: ' spaced ',
      KAFKA_TLS: 'true',
      KAFKA_TLS_CERT_FILE: file(CERT),
      KAFKA_TLS_KEY_FILE: file(ENCRYPTED_KEY),
      KAFKA_TLS_KEY_PASSWORD: 'key-pass',
    });
    const settings = kafkaClientSettings(config);
    expect(settings.sasl?.password).toBe(' spaced ');
    expect(settings.tls).toEqual({
      ca: undefined,
      clientCertificate: { cert: CERT, key: ENCRYPTED_KEY, passphrase: 'key-pass' },
    });
  });

  it('when the configuration is summarised, then passwords are masked and files shown by path only', () => {
    const keyFile = file(KEY);
    const passwordFile = file('file-secret');
    const config = loadConfig({
      ...REQUIRED,
      ...SCRAM,
      KAFKA_SASL_PASSWORD_FILE: passwordFile,
      KAFKA_TLS: 'true',
      KAFKA_TLS_CERT_FILE: file(CERT),
      KAFKA_TLS_KEY_FILE: keyFile,
    });
    const summary = configSummary(config);
    expect(summary).toMatchObject({
      KAFKA_TLS_KEY_FILE: keyFile,
      KAFKA_SASL_PASSWORD_FILE: passwordFile,
      KAFKA_SASL_PASSWORD: '***',
      KAFKA_TLS_KEY_PASSWORD: '***',
    });
    // Even the whole configuration, serialised or inspected, holds no file's content.
    for (const shown of [JSON.stringify(summary), JSON.stringify(config), inspect(config)]) {
      expect(shown).not.toContain('file-secret');
      expect(shown).not.toContain('PRIVATE KEY');
    }
    const inline = configSummary(loadConfig({ ...REQUIRED, ...SCRAM, KAFKA_SASL_PASSWORD: 'pw1' }));
    expect(JSON.stringify(inline)).not.toContain('pw1');
  });
});

describe('Kafka security rules at start', () => {
  it('when a SASL mechanism comes without username and password, then one message names both', () => {
    const { message, variables } = problems({ KAFKA_SASL_MECHANISM: 'plain' });
    expect(variables.map((v) => v.path)).toEqual(['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD']);
    expect(message).toContain('KAFKA_SASL_PASSWORD_FILE');
  });

  it('when a password is set both inline and as a file, then the pair is named', () => {
    expect(
      named({ ...SCRAM, KAFKA_SASL_PASSWORD: 'a', KAFKA_SASL_PASSWORD_FILE: file('b') }),
    ).toEqual(['KAFKA_SASL_PASSWORD_FILE']);
    const { message } = problems({
      KAFKA_TLS: 'true',
      KAFKA_TLS_CERT_FILE: file(CERT),
      KAFKA_TLS_KEY_FILE: file(ENCRYPTED_KEY),
      KAFKA_TLS_KEY_PASSWORD: 'key-pass',
      KAFKA_TLS_KEY_PASSWORD_FILE: file('key-pass'),
    });
    expect(message).toMatch(
      /KAFKA_TLS_KEY_PASSWORD_FILE is set together with KAFKA_TLS_KEY_PASSWORD/,
    );
  });

  it('when SASL credentials are set without a mechanism, then each is named', () => {
    expect(named({ KAFKA_SASL_USERNAME: 'bridge', KAFKA_SASL_PASSWORD_FILE: file('pw') })).toEqual([
      'KAFKA_SASL_PASSWORD_FILE',
      'KAFKA_SASL_USERNAME',
    ]);
  });

  it('when TLS files are set but KAFKA_TLS is not, then each is named', () => {
    expect(named({ KAFKA_TLS_CA_FILE: file(CA), KAFKA_TLS_KEY_PASSWORD: 'x' })).toEqual([
      'KAFKA_TLS_CA_FILE',
      'KAFKA_TLS_KEY_PASSWORD',
    ]);
  });

  it('when a certificate comes without its key, or a key or key password without a certificate, then the missing one is named', () => {
    const tls = { KAFKA_TLS: 'true' };
    expect(named({ ...tls, KAFKA_TLS_CERT_FILE: file(CERT) })).toEqual(['KAFKA_TLS_KEY_FILE']);
    expect(named({ ...tls, KAFKA_TLS_KEY_FILE: file(KEY) })).toEqual(['KAFKA_TLS_CERT_FILE']);
    expect(named({ ...tls, KAFKA_TLS_KEY_PASSWORD: 'x' })).toEqual(['KAFKA_TLS_KEY_PASSWORD']);
  });

  it('when files hold the wrong things, then each bad file is named in one message', () => {
    const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const { message, variables } = problems({
      KAFKA_TLS: 'true',
      KAFKA_TLS_CA_FILE: file('not a certificate'),
      KAFKA_TLS_CERT_FILE: file(CERT),
      KAFKA_TLS_KEY_FILE: file(otherKey.export({ type: 'pkcs8', format: 'pem' }) as string),
    });
    expect(variables.map((v) => v.path)).toEqual(['KAFKA_TLS_CA_FILE', 'KAFKA_TLS_KEY_FILE']);
    expect(message).toMatch(/KAFKA_TLS_KEY_FILE must be the key of the certificate/);
    expect(
      named({ KAFKA_TLS: 'true', KAFKA_TLS_CERT_FILE: file(KEY), KAFKA_TLS_KEY_FILE: file(CA) }),
    ).toEqual(['KAFKA_TLS_CERT_FILE', 'KAFKA_TLS_KEY_FILE']);
  });

  it('when the key is encrypted and its password is missing or wrong, then the password variable is named', () => {
    const tls = { KAFKA_TLS: 'true', KAFKA_TLS_CERT_FILE: file(CERT) };
    const key = { KAFKA_TLS_KEY_FILE: file(ENCRYPTED_KEY) };
    expect(problems({ ...tls, ...key }).message).toMatch(
      /KAFKA_TLS_KEY_PASSWORD is required: KAFKA_TLS_KEY_FILE is encrypted/,
    );
    expect(
      problems({ ...tls, ...key, KAFKA_TLS_KEY_PASSWORD_FILE: file('wrong') }).message,
    ).toMatch(/KAFKA_TLS_KEY_PASSWORD_FILE does not decrypt KAFKA_TLS_KEY_FILE/);
  });
});

describe('files named by variables', () => {
  const sasl = (path: string) => ({ ...SCRAM, KAFKA_SASL_PASSWORD_FILE: path });

  it('when files are missing, directories or empty, then each is named, without its path', () => {
    const missing = join(dir, 'no-such-file');
    const folder = join(dir, 'a-folder');
    mkdirSync(folder, { recursive: true });
    const { message, variables } = problems({
      ...sasl(missing),
      KAFKA_TLS: 'true',
      KAFKA_TLS_CA_FILE: folder,
      KAFKA_TLS_CERT_FILE: file(''),
      KAFKA_TLS_KEY_FILE: file(KEY),
    });
    expect(variables).toEqual([
      { path: 'KAFKA_TLS_CA_FILE', rule: 'must name a regular file' },
      { path: 'KAFKA_TLS_CERT_FILE', rule: 'must name a file that is not empty' },
      { path: 'KAFKA_SASL_PASSWORD_FILE', rule: 'must name an existing file' },
    ]);
    expect(message).not.toContain(dir);
  });

  it(`when a file holds ${CONFIG_FILE_MAX_BYTES} bytes, then it is read; one byte more, and it is refused`, () => {
    const atLimit = file(Buffer.alloc(CONFIG_FILE_MAX_BYTES, 'p'));
    const settings = kafkaClientSettings(loadConfig({ ...REQUIRED, ...sasl(atLimit) }));
    expect(settings.sasl?.password).toHaveLength(CONFIG_FILE_MAX_BYTES);
    const over = file(Buffer.alloc(CONFIG_FILE_MAX_BYTES + 1, 'p'));
    expect(problems(sasl(over)).variables).toEqual([
      {
        path: 'KAFKA_SASL_PASSWORD_FILE',
        rule: `must name a file of at most ${CONFIG_FILE_MAX_BYTES} bytes`,
      },
    ]);
  });

  it('when a password file holds only a line break, then it counts as empty', () => {
    expect(problems(sasl(file('\n'))).variables).toEqual([
      { path: 'KAFKA_SASL_PASSWORD_FILE', rule: 'must name a file that is not empty' },
    ]);
  });
});
