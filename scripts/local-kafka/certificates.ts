// Certificates for the local broker's TLS listeners, made fresh with the JDK's keytool: a CA, the
// broker's keystore (its certificate for 127.0.0.1, signed by the CA), a client certificate
// and key for mutual TLS, and a second CA that signed nothing here (a client trusting only it
// must refuse the broker).
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOST } from './ports.js';
import { lastLines, runTool } from './tool-run.js';

const EXPORT_KEY = fileURLToPath(new URL('export-key.java', import.meta.url));
const VALIDITY_DAYS = '30';
// A dozen short JVM runs: the quick compiler and the simplest collector start about 3x faster.
const QUICK_JVM = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

export interface TestCertificates {
  /** PEM: the CA that signed the broker's and the client's certificates. */
  caFile: string;
  /** PEM: a CA that signed neither. */
  otherCaFile: string;
  /** PKCS#12: the broker's key and certificate chain, locked with `storePassword`. */
  brokerKeystore: string;
  storePassword: string;
  /** PEM: the client's certificate, and its unencrypted PKCS#8 key. */
  clientCertFile: string;
  clientKeyFile: string;
}

export async function makeCertificates(dir: string): Promise<TestCertificates> {
  await mkdir(dir, { recursive: true });
  const password = randomBytes(12).toString('hex');
  const file = (name: string) => join(dir, name);
  const keytool = (...args: string[]) =>
    run('keytool', [...QUICK_JVM.map((flag) => `-J${flag}`), ...args, '-storepass', password]);
  const store = (alias: string) => ['-alias', alias, '-keystore', file(`${alias}.p12`)];
  const newKey = (alias: string, name: string, ...extra: string[]) =>
    keytool(
      '-genkeypair',
      ...store(alias),
      '-storetype',
      'PKCS12',
      '-dname',
      `CN=${name}`,
      '-keyalg',
      'EC',
      '-groupname',
      'secp256r1',
      '-validity',
      VALIDITY_DAYS,
      ...extra,
    );
  // Keys are independent; each signing needs the CA and the request.
  await Promise.all([
    newKey('ca', 'local-kafka test CA', '-ext', 'bc:c'),
    newKey('other-ca', 'local-kafka untrusted CA', '-ext', 'bc:c'),
    newKey('broker', HOST),
    newKey('client', 'signing-bridge test client'),
  ]);
  const exportCert = (alias: string, out: string) =>
    keytool('-exportcert', ...store(alias), '-rfc', '-file', file(out));
  const request = (alias: string) =>
    keytool('-certreq', ...store(alias), '-file', file(`${alias}.csr`));
  await Promise.all([
    exportCert('ca', 'ca.pem'),
    exportCert('other-ca', 'other-ca.pem'),
    request('broker'),
    request('client'),
  ]);
  const sign = (alias: string, ...extra: string[]) =>
    keytool(
      '-gencert',
      ...store('ca'),
      '-infile',
      file(`${alias}.csr`),
      '-outfile',
      file(`${alias}.pem`),
      '-rfc',
      '-validity',
      VALIDITY_DAYS,
      ...extra,
    );
  // The broker's certificate names the one address clients use, so host names are verified.
  await Promise.all([sign('broker', '-ext', `SAN=ip:${HOST}`), sign('client')]);
  const [ca, broker] = await Promise.all([readFile(file('ca.pem')), readFile(file('broker.pem'))]);
  await writeFile(file('broker-chain.pem'), Buffer.concat([broker, ca]));
  await Promise.all([
    keytool('-importcert', ...store('broker'), '-file', file('broker-chain.pem'), '-noprompt'),
    run('java', [
      ...QUICK_JVM,
      EXPORT_KEY,
      file('client.p12'),
      password,
      'client',
      file('client-key.pem'),
    ]),
  ]);
  return {
    caFile: file('ca.pem'),
    otherCaFile: file('other-ca.pem'),
    brokerKeystore: file('broker.p12'),
    storePassword: password,
    clientCertFile: file('client.pem'),
    clientKeyFile: file('client-key.pem'),
  };
}

async function run(command: string, args: string[]): Promise<void> {
  const { code, output } = await runTool(command, args);
  if (code !== 0) {
    const what = args.find((arg) => !arg.startsWith('-J') && !arg.startsWith('-XX'));
    throw new Error(`${command} ${what} failed (exit ${code}):\n${lastLines(output, 20)}`);
  }
}
