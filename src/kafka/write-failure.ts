import { KafkaWriteFailed } from '../errors.js';

/**
 * kafkajs already retried what it deems retriable (for an idempotent producer, until its retry
 * time ran out); a protocol error it does not retry is the broker refusing the records for good.
 */
export function writeFailed(error: unknown): KafkaWriteFailed {
  if (error instanceof KafkaWriteFailed) return error;
  const {
    name = 'Error',
    message = String(error),
    retriable,
  } = error as {
    name?: string;
    message?: string;
    retriable?: boolean;
  };
  const permanent = name === 'KafkaJSProtocolError' && retriable === false;
  return new KafkaWriteFailed(`writing to Kafka failed: ${message}`, {
    details: { kafkaError: name, permanent },
    cause: error,
  });
}
