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

/**
 * The bridge's own writes (the outbox's producers, both delivery modes) give up sooner: 5 tries,
 * 0.1 s doubling, at most 1.8 s of waits. The outbox sends a failed write again itself, and checks
 * before every attempt that this instance still holds the partitions written (the lease); tries
 * kept inside kafkajs would skip that check. A step's `started` is written only with half the
 * lease ahead (partitions/lease.ts, 3 s): written by tries that end within that margin, it is
 * acknowledged while the lease holds or not written at all, so a `started` never lands after
 * the lease ran out for a request that then never left (docs/design.md, "When a command is in
 * doubt"). A try whose request hangs on a connected broker still lasts up to kafkajs'
 * requestTimeout.
 */
export const OUTBOX_RETRY = {
  retries: 4,
  initialRetryTime: 100,
  multiplier: 2,
  maxRetryTime: 1_000,
  factor: 0.2,
} as const satisfies RetryOptions;

/** A copy for kafkajs, which may keep and change what it is given. */
export const outboxRetry = (): RetryOptions => ({ ...OUTBOX_RETRY });

/** The longest a retry waits between its tries in all: each wait is at most 1 + factor of its step. */
export function longestRetryWaitMs(
  retry: Required<Omit<RetryOptions, 'restartOnFailure'>>,
): number {
  let total = 0;
  for (let attempt = 0; attempt < retry.retries; attempt += 1) {
    const step = Math.min(retry.initialRetryTime * retry.multiplier ** attempt, retry.maxRetryTime);
    total += step * (1 + retry.factor);
  }
  return total;
}
