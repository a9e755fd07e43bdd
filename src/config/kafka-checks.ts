/**
 * Rules between the Kafka security variables (TLS and SASL). A rule that involves a variable
 * already found bad on its own is skipped, so each mistake is reported once, where it is.
 */
import type { InvalidField } from '../errors.js';
import { FileText } from './file-values.js';
import type { VariableName } from './table.js';
import { checkTlsFiles } from './tls-material.js';

type Values = Partial<Record<VariableName, unknown>>;

/** A secret given either inline or as a file: at most one of the two may be set. */
interface SecretPair {
  readonly inline: VariableName;
  readonly file: VariableName;
}
const KEY_PASSWORD: SecretPair = {
  inline: 'KAFKA_TLS_KEY_PASSWORD',
  file: 'KAFKA_TLS_KEY_PASSWORD_FILE',
};
const SASL_PASSWORD: SecretPair = {
  inline: 'KAFKA_SASL_PASSWORD',
  file: 'KAFKA_SASL_PASSWORD_FILE',
};

const TLS_FILES: readonly VariableName[] = [
  'KAFKA_TLS_CA_FILE',
  'KAFKA_TLS_CERT_FILE',
  'KAFKA_TLS_KEY_FILE',
  KEY_PASSWORD.inline,
  KEY_PASSWORD.file,
];
const SASL_CREDENTIALS: readonly VariableName[] = [
  'KAFKA_SASL_USERNAME',
  SASL_PASSWORD.inline,
  SASL_PASSWORD.file,
];

export function kafkaChecks(values: Values, invalid: ReadonlySet<string>): InvalidField[] {
  return [...tlsChecks(values, invalid), ...saslChecks(values, invalid)];
}

function tlsChecks(values: Values, invalid: ReadonlySet<string>): InvalidField[] {
  if (invalid.has('KAFKA_TLS')) return [];
  const set = (name: VariableName) => values[name] !== undefined;
  const missing = (name: VariableName) => !set(name) && !invalid.has(name);
  if (values.KAFKA_TLS !== true)
    return TLS_FILES.filter(set).map((path) => ({
      path,
      rule: 'is set but KAFKA_TLS is false: set KAFKA_TLS=true or leave this empty',
    }));
  const problems = onlyOne(values, KEY_PASSWORD);
  if (set('KAFKA_TLS_CERT_FILE') && missing('KAFKA_TLS_KEY_FILE'))
    problems.push({ path: 'KAFKA_TLS_KEY_FILE', rule: 'is required with KAFKA_TLS_CERT_FILE' });
  if (set('KAFKA_TLS_KEY_FILE') && missing('KAFKA_TLS_CERT_FILE'))
    problems.push({ path: 'KAFKA_TLS_CERT_FILE', rule: 'is required with KAFKA_TLS_KEY_FILE' });
  const passwordVariable = set(KEY_PASSWORD.file) ? KEY_PASSWORD.file : KEY_PASSWORD.inline;
  if (set(passwordVariable) && missing('KAFKA_TLS_KEY_FILE'))
    problems.push({ path: passwordVariable, rule: 'is set but KAFKA_TLS_KEY_FILE is not' });
  if (problems.length > 0 || TLS_FILES.some((name) => invalid.has(name))) return problems;
  const cert = textOf(values.KAFKA_TLS_CERT_FILE);
  const key = textOf(values.KAFKA_TLS_KEY_FILE);
  const clientCertificate =
    cert === undefined || key === undefined
      ? undefined
      : { cert, key, passphrase: secretOf(values, KEY_PASSWORD) };
  return checkTlsFiles(
    { ca: textOf(values.KAFKA_TLS_CA_FILE), clientCertificate },
    passwordVariable,
  );
}

function saslChecks(values: Values, invalid: ReadonlySet<string>): InvalidField[] {
  const mechanism = values.KAFKA_SASL_MECHANISM;
  if (mechanism === undefined) return [];
  const set = (name: VariableName) => values[name] !== undefined;
  if (mechanism === 'none')
    return SASL_CREDENTIALS.filter(set).map((path) => ({
      path,
      rule: 'is set but KAFKA_SASL_MECHANISM is none: set a mechanism or leave this empty',
    }));
  const problems = onlyOne(values, SASL_PASSWORD);
  const required = `is required with KAFKA_SASL_MECHANISM=${String(mechanism)}`;
  if (!set('KAFKA_SASL_USERNAME') && !invalid.has('KAFKA_SASL_USERNAME'))
    problems.push({ path: 'KAFKA_SASL_USERNAME', rule: required });
  const passwords = [SASL_PASSWORD.inline, SASL_PASSWORD.file];
  if (!passwords.some((name) => set(name) || invalid.has(name)))
    problems.push({ path: SASL_PASSWORD.inline, rule: `${required} (or ${SASL_PASSWORD.file})` });
  return problems;
}

function onlyOne(values: Values, pair: SecretPair): InvalidField[] {
  if (values[pair.inline] === undefined || values[pair.file] === undefined) return [];
  return [{ path: pair.file, rule: `is set together with ${pair.inline}: set only one` }];
}

/** The secret of a pair, from whichever variable is set. */
function secretOf(values: Values, pair: SecretPair): string | undefined {
  const inline = values[pair.inline];
  return typeof inline === 'string' ? inline : textOf(values[pair.file]);
}

function textOf(value: unknown): string | undefined {
  return value instanceof FileText ? value.text : undefined;
}
