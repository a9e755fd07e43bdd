import type { RetryOptions } from 'kafkajs';

/**
 * How long every kafkajs client of the bridge and the SDK (the group consumer, the producers,
 * the admin) keeps trying a request that fails for a reason that may pass before it gives up:
 * 20 tries, 0.1 s doubling to 1 s apart, 16 to 18 s in all (the jitter is ±20%).
 *
 * It must outlast a Kafka node going away. A killed broker leads its partitions until the
 * controller fences it (`broker.session.timeout.ms`, 9 s by default), a stopped one until its
 * controlled shutdown has moved them; until then the metadata names it, and every try meets a
 * refused connection (kafkajs reads the metadata again at each). Given up sooner, a consumer
 * crashes and leaves the group, a send is refused to its caller (the SDK's) or sent again by the
 * outbox, an admin call fails.
 *
 * Every field is set: kafkajs' defaults depend on NODE_ENV (`test`: 50 ms growing ×1.5, so
 * kafka.consumer()'s 5 tries last under a second and a producer's 15 about 9.5 s; otherwise
 * 0.3 s doubling, 5 tries, about 9 s), and the client's own `retry`, if an SDK user's Kafka has
 * one, is merged beneath what a producer or admin is given.
 */
export const BROKER_LOSS_RETRY = {
  retries: 20,
  initialRetryTime: 100,
  multiplier: 2,
  maxRetryTime: 1_000,
  factor: 0.2,
} as const satisfies RetryOptions;

/** A copy for kafkajs, which may keep and change what it is given. */
export const brokerLossRetry = (): RetryOptions => ({ ...BROKER_LOSS_RETRY });
