/**
 * One bounded first contact with the cluster before anything else connects: it logs in as every
 * later connection will and reads the cluster's metadata. kafkajs would retry a TLS refusal
 * for as long as it is asked to, and a consumer group retries forever, so a refusal found here
 * stops start-up at once, named; a cluster that does not answer gets a few attempts.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Kafka, type KafkaConfig } from 'kafkajs';
import { KafkaUnreachable } from '../errors.js';
import { type BackoffPolicy, backoffCap } from '../retry/backoff.js';
import { refusalOf } from './refusal.js';

export interface PreflightPolicy extends BackoffPolicy {
  readonly attempts: number;
}

/** Close to kafkajs' own default retry: six attempts over about ten seconds. */
export const PREFLIGHT_POLICY: PreflightPolicy = {
  attempts: 6,
  initialDelayMs: 300,
  maxDelayMs: 5_000,
  multiplier: 2,
};

/** `config`: the client's, whose connections this one tries out. */
export async function preflight(
  config: KafkaConfig & { brokers: string[] },
  policy: PreflightPolicy = PREFLIGHT_POLICY,
): Promise<void> {
  // Attempts are counted here: kafkajs' own retries (a client setting) would retry a refusal.
  const kafka = new Kafka({ ...config, retry: { retries: 0 } });
  let last: unknown;
  for (let attempt = 1; attempt <= policy.attempts; attempt += 1) {
    if (attempt > 1) await delay(backoffCap(policy, attempt - 2));
    const admin = kafka.admin();
    try {
      await admin.connect();
      await admin.describeCluster();
      return;
    } catch (error) {
      const refused = refusalOf(error);
      if (refused) throw refused;
      last = error;
    } finally {
      await admin.disconnect().catch(() => {});
    }
  }
  const kafkaError = last instanceof Error ? last.message : String(last);
  throw new KafkaUnreachable(
    `no Kafka broker of KAFKA_BROKERS answered in ${policy.attempts} attempts (${kafkaError}): check KAFKA_BROKERS, and that KAFKA_TLS and KAFKA_SASL_MECHANISM match the listener (a broker closes connections that do not)`,
    { details: { brokers: config.brokers, attempts: policy.attempts, kafkaError }, cause: last },
  );
}
