/**
 * The TLS files read into what they must hold: certificates that parse, a private key that the
 * password (if any) decrypts and that belongs to the client certificate. Checked at start, so a
 * wrong file is named there instead of failing every connection later.
 */
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import type { InvalidField } from '../errors.js';
import type { ClientCertificate, KafkaTlsSettings } from '../kafka/index.js';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** `passwordVariable`: the one of the key password pair that is set. */
export function checkTlsFiles(tls: KafkaTlsSettings, passwordVariable: string): InvalidField[] {
  const problems: InvalidField[] = [];
  if (tls.ca !== undefined && certificates(tls.ca) === undefined)
    problems.push({
      path: 'KAFKA_TLS_CA_FILE',
      rule: 'must hold PEM certificates (BEGIN CERTIFICATE)',
    });
  if (tls.clientCertificate)
    problems.push(...checkClientCertificate(tls.clientCertificate, passwordVariable));
  return problems;
}

function checkClientCertificate(
  { cert, key, passphrase }: ClientCertificate,
  passwordVariable: string,
): InvalidField[] {
  const problems: InvalidField[] = [];
  const certificate = certificates(cert)?.[0];
  if (certificate === undefined)
    problems.push({
      path: 'KAFKA_TLS_CERT_FILE',
      rule: 'must hold a PEM certificate (BEGIN CERTIFICATE)',
    });
  const read = privateKey(key, passphrase, passwordVariable);
  if ('problem' in read) problems.push(read.problem);
  else if (certificate && !certificate.checkPrivateKey(read.key))
    problems.push({
      path: 'KAFKA_TLS_KEY_FILE',
      rule: 'must be the key of the certificate in KAFKA_TLS_CERT_FILE',
    });
  return problems;
}

/** Every certificate in the text, or undefined when it has none or one does not parse. */
function certificates(text: string): X509Certificate[] | undefined {
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  try {
    const parsed = blocks.map((block) => new X509Certificate(block));
    return parsed.length > 0 ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function privateKey(
  pem: string,
  passphrase: string | undefined,
  passwordVariable: string,
): { key: KeyObject } | { problem: InvalidField } {
  // PKCS#8 (BEGIN ENCRYPTED PRIVATE KEY) and legacy PEM (Proc-Type: 4,ENCRYPTED) alike.
  const encrypted = /ENCRYPTED/.test(pem);
  const problem = (path: string, rule: string) => ({ problem: { path, rule } });
  if (encrypted && passphrase === undefined)
    return problem(passwordVariable, 'is required: KAFKA_TLS_KEY_FILE is encrypted');
  try {
    return { key: createPrivateKey({ key: pem, format: 'pem', passphrase }) };
  } catch {
    if (encrypted) return problem(passwordVariable, 'does not decrypt KAFKA_TLS_KEY_FILE');
    return problem('KAFKA_TLS_KEY_FILE', 'must hold a PEM private key (BEGIN … PRIVATE KEY)');
  }
}
