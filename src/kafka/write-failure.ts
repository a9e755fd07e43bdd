import { KafkaWriteFailed } from '../errors.js';

interface ErrorLink {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly type?: unknown;
  readonly retriable?: unknown;
  readonly cause?: unknown;
}

/**
 * kafkajs already retried what it deems retriable (for an idempotent producer, until its retry
 * time ran out); a protocol error it does not retry is the broker refusing the records for good.
 * kafkajs hands that error over as it is, or wrapped (KafkaJSNonRetriableError when the metadata
 * of a topic was refused, KafkaJSNumberOfRetriesExceeded around the last of what it retried):
 * `kafkaError` is the broker's error code found in the chain (TOPIC_AUTHORIZATION_FAILED,
 * NOT_ENOUGH_REPLICAS...), else the error's name.
 */
export function writeFailed(error: unknown): KafkaWriteFailed {
  if (error instanceof KafkaWriteFailed) return error;
  const { name = 'Error', message = String(error) } = error as ErrorLink;
  const protocol = protocolError(error);
  const permanent = protocol !== undefined && protocol.retriable === false;
  const kafkaError = typeof protocol?.type === 'string' ? protocol.type : String(name);
  return new KafkaWriteFailed(`writing to Kafka failed: ${String(message)}`, {
    details: { kafkaError, permanent },
    cause: error,
  });
}

/** The broker's error in the chain of causes, if any (a few links at most: kafkajs wraps once). */
function protocolError(error: unknown): ErrorLink | undefined {
  let link = error as ErrorLink | undefined;
  for (let depth = 0; link && depth < 4; depth += 1) {
    if (link.name === 'KafkaJSProtocolError') return link;
    link = link.cause as ErrorLink | undefined;
  }
  return undefined;
}
