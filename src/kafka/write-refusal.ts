/**
 * How long a write Kafka refused for good stays refused, decided in one place from the broker's
 * error code (writeFailed's `kafkaError`):
 *
 * - `record`: this record is the problem (too large, malformed): the same write is refused
 *   again, but the next command's is not. Its command ends with a failure that says so.
 * - `until-fixed`: the topic or this client is refused (an ACL revoked, the instance's clock
 *   outside the broker's timestamp bounds, a broker policy) until an operator acts: every
 *   write to it is refused meanwhile and then all go through. Nothing is dropped: the bridge
 *   stops taking work and writes the same records again until they go (docs/design.md, "When
 *   Kafka refuses a write").
 *
 * Any code not known to be about one record holds until fixed: holding costs a pause, dropping
 * a result costs the result.
 */
import { KafkaWriteFailed } from '../errors.js';

export type WriteRefusal = 'record' | 'until-fixed';

/** The codes that refuse one record for what it is, not the topic or the client. */
const RECORD_SPECIFIC: ReadonlySet<string> = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  // The outbox's own: a record over the topic's max.message.bytes, never sent.
  'RecordTooLarge',
  'INVALID_RECORD',
]);

export function refusalOfCode(kafkaError: string): WriteRefusal {
  return RECORD_SPECIFIC.has(kafkaError) ? 'record' : 'until-fixed';
}

/** What a failed write is: refused for good (and for how long), or undefined when it may pass. */
export function writeRefusal(error: unknown): WriteRefusal | undefined {
  if (!(error instanceof KafkaWriteFailed) || error.retryable) return undefined;
  return refusalOfCode(error.details.kafkaError);
}

/** A write refused until an operator acts (see above). */
export function refusedUntilFixed(error: unknown): error is KafkaWriteFailed {
  return writeRefusal(error) === 'until-fixed';
}

/** What to check for a refusal that holds, by the broker's code: said in the log and /readyz. */
export function refusalAdvice(kafkaError: string): string {
  return ADVICE[kafkaError] ?? DEFAULT_ADVICE;
}

const ADVICE: Readonly<Record<string, string>> = {
  TOPIC_AUTHORIZATION_FAILED:
    "the topic's ACLs: this instance's principal needs Write and Describe on it (kafka-acls --list --topic ...)",
  CLUSTER_AUTHORIZATION_FAILED:
    "the cluster's ACLs: this instance's principal needs IdempotentWrite on the cluster (the bridge's producer is idempotent)",
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED:
    "the ACLs on transactional ids: in exactly-once mode this instance's principal needs Write and Describe on the transactional ids that start with its KAFKA_GROUP_ID",
  INVALID_TIMESTAMP:
    "the instance's clock (NTP) against the broker's, and the topic's message.timestamp.before.max.ms and message.timestamp.after.max.ms (message.timestamp.difference.max.ms before Kafka 3.6)",
  POLICY_VIOLATION: "the broker's policies (a create-topic or alter-config policy refusing it)",
  OUT_OF_ORDER_SEQUENCE_NUMBER:
    'nothing, usually: the producer is replaced and the write goes through at the next try',
};

const DEFAULT_ADVICE = "the topic's ACLs and configuration, and the broker's log";
