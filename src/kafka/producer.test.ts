import { createRequire } from 'node:module';
import {
  type Kafka,
  KafkaJSConnectionError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  type Producer,
} from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import { KafkaWriteFailed } from '../errors.js';
import { connectProducer, connectTransactionalProducer, fenceTransactionalId } from './producer.js';

// kafkajs' own producer, read (never changed): the transactional tests drive its transaction
// manager over a fake broker, since what they guard against is how that manager behaves.
const load = createRequire(import.meta.url);
const createKafkajsProducer = load('kafkajs/src/producer/index.js') as (
  options: unknown,
) => Producer;
const { createLogger, LEVELS } = load('kafkajs/src/loggers/index.js') as {
  createLogger: (options: unknown) => unknown;
  LEVELS: { NOTHING: number };
};

/** kafkajs' Kafka, reduced to a producer whose transaction() does what `begin` says. */
function kafkaWhoseTransactions(begin: () => Promise<unknown>) {
  const producer = {
    connect: vi.fn(async () => {}),
    disconnect: vi.fn(async () => {}),
    transaction: vi.fn(begin),
  };
  return { kafka: { producer: () => producer } as unknown as Kafka, producer };
}

const record = { topic: 't', partition: 0, key: 'k', value: 'v' };
/** What Kafka answers for `record`. */
const written = [{ topicName: 't', partition: 0, errorCode: 0 }];

const refusedForGood = () =>
  new KafkaJSProtocolError(
    Object.assign(new Error('Transactional Id authorization failed'), {
      type: 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
      code: 53,
      retriable: false,
    }),
  );

const connectionLost = () =>
  new KafkaJSConnectionError('Connection error: read ECONNRESET', { broker: 'b1:9092' });

/**
 * One broker, the transaction coordinator too, as the protocol has it: InitProducerId with a
 * transactional id bumps its epoch, aborting the transaction the previous epoch left open and
 * fencing that epoch; EndTxn commits or aborts what the epoch wrote since. `fail` makes the next
 * `times` requests of a kind fail, after the broker did what each asked when `afterDoing` (its
 * answer lost).
 */
class FakeBroker {
  readonly nodeId = 1;
  readonly committed: string[] = [];
  readonly aborted: string[] = [];
  /** Every InitProducerId of a transactional id: the epoch it got. */
  readonly initialised: Array<{ transactionalId: string; producerEpoch: number }> = [];
  readonly endTxnCalls: Array<{ producerEpoch: number; commit: boolean }> = [];
  readonly #fail = new Map<string, { error: () => Error; afterDoing: boolean; times: number }>();
  #epoch = -1;
  #open: string[] = [];

  fail(
    request: 'produce' | 'endTxn',
    error: () => Error,
    { afterDoing = false, times = 1 } = {},
  ): void {
    this.#fail.set(request, { error, afterDoing, times });
  }

  async initProducerId({ transactionalId }: { transactionalId?: string }) {
    if (transactionalId === undefined) return { producerId: 7, producerEpoch: 0 };
    this.#end(false);
    this.#epoch++;
    this.initialised.push({ transactionalId, producerEpoch: this.#epoch });
    return { producerId: 1000, producerEpoch: this.#epoch };
  }

  async addPartitionsToTxn({ producerEpoch }: { producerEpoch: number }) {
    this.#fenced(producerEpoch);
    return {};
  }

  async produce({ producerEpoch, topicData }: ProduceRequest) {
    this.#fenced(producerEpoch);
    const values = topicData.flatMap((t) =>
      t.partitions.flatMap((p) => p.messages.map((m) => String(m.value))),
    );
    return this.#request('produce', () => {
      this.#open.push(...values);
      return {
        topics: topicData.map(({ topic, partitions }) => ({
          topicName: topic,
          partitions: partitions.map(({ partition }) => ({
            partition,
            errorCode: 0,
            baseOffset: '0',
          })),
        })),
      };
    });
  }

  async endTxn({
    producerEpoch,
    transactionResult,
  }: {
    producerEpoch: number;
    transactionResult: boolean;
  }) {
    this.endTxnCalls.push({ producerEpoch, commit: transactionResult });
    this.#fenced(producerEpoch);
    return this.#request('endTxn', () => {
      this.#end(transactionResult);
      return {};
    });
  }

  #request<T>(kind: string, doIt: () => T): T {
    const failure = this.#fail.get(kind);
    if (!failure) return doIt();
    if (--failure.times === 0) this.#fail.delete(kind);
    if (failure.afterDoing) doIt();
    throw failure.error();
  }

  #end(commit: boolean): void {
    (commit ? this.committed : this.aborted).push(...this.#open);
    this.#open = [];
  }

  #fenced(epoch: number): void {
    if (epoch === this.#epoch) return;
    throw new KafkaJSProtocolError(
      Object.assign(new Error('Producer attempted an operation with an old epoch'), {
        type: 'INVALID_PRODUCER_EPOCH',
        code: 47,
        retriable: false,
      }),
    );
  }
}

interface ProduceRequest {
  producerEpoch: number;
  topicData: Array<{
    topic: string;
    partitions: Array<{ partition: number; messages: Array<{ value: unknown }> }>;
  }>;
}

/**
 * A Kafka whose producers are kafkajs' own (its transaction manager and produce path, read and
 * never changed), each over a cluster of its own that reaches the one broker.
 */
function kafkaOver(broker: FakeBroker) {
  const producers: Array<{ config: Record<string, unknown>; disconnected: boolean }> = [];
  const kafka = {
    producer(config: Record<string, unknown>) {
      const made = { config, disconnected: false };
      producers.push(made);
      const cluster = {
        retry: { retries: 0 },
        targetTopics: new Set<string>(),
        connect: async () => {},
        disconnect: async () => {
          made.disconnected = true;
        },
        isConnected: () => true,
        refreshMetadata: async () => {},
        refreshMetadataIfNecessary: async () => {},
        addMultipleTargetTopics: async () => {},
        findTopicPartitionMetadata: () => [{ partitionId: 0, leader: 1 }],
        findLeaderForPartitions: (_topic: string, partitions: number[]) => ({ 1: partitions }),
        findBroker: async () => broker,
        findGroupCoordinator: async () => broker,
        findControllerBroker: async () => broker,
        removeBroker: () => {},
      };
      return createKafkajsProducer({
        ...config,
        retry: { retries: 1, initialRetryTime: 1, maxRetryTime: 10 },
        cluster,
        logger: createLogger({ level: LEVELS.NOTHING, logCreator: () => () => {} }),
      });
    },
  } as unknown as Kafka;
  return { kafka, producers };
}

const valued = (value: string) => ({ topic: 't', partition: 0, key: 'k', value });

describe('transactional producer', () => {
  it("kafkajs' own transaction manager, once an EndTxn failed, refuses every later transaction: why a failed transaction takes its producer with it", async () => {
    const broker = new FakeBroker();
    const { kafka } = kafkaOver(broker);
    const producer = kafka.producer({ transactionalId: 'tx-1', idempotent: true });
    await producer.connect();
    broker.fail('endTxn', connectionLost);
    const transaction = await producer.transaction();
    await transaction.send({ topic: 't', messages: [{ value: 'a' }] });
    await expect(transaction.commit()).rejects.toThrow('ECONNRESET');
    await expect(transaction.abort()).rejects.toThrow(
      'Cannot continue to use transaction once ended',
    );
    await expect(producer.transaction()).rejects.toThrow(
      'Cannot call "beginTransaction" in state "COMMITTING"',
    );
  });

  it('when a commit fails (the connection dropped), then the next send goes through a new producer with the same transactional id, whose initialisation aborts the open transaction, and the batch sent again is committed once', async () => {
    const broker = new FakeBroker();
    const { kafka, producers } = kafkaOver(broker);
    const producer = await connectTransactionalProducer(kafka, 'tx-1', 10_000);
    await producer.send([valued('a')]);
    broker.fail('endTxn', connectionLost);
    await expect(producer.send([valued('b')])).rejects.toMatchObject({
      retryable: true,
      details: { kafkaError: 'KafkaJSConnectionError', permanent: false },
    });
    await producer.send([valued('b')]);
    await producer.send([valued('c')]);

    expect(producers.map((p) => p.config.transactionalId)).toEqual(['tx-1', 'tx-1']);
    expect(producers.map((p) => p.disconnected)).toEqual([true, false]);
    expect(broker.initialised).toEqual([
      { transactionalId: 'tx-1', producerEpoch: 0 },
      { transactionalId: 'tx-1', producerEpoch: 1 },
    ]);
    expect(broker.committed).toEqual(['a', 'b', 'c']);
    expect(broker.aborted).toEqual(['b']);
  });

  it('when a commit whose outcome is unknown had taken effect (the answer lost), then the batch sent again in the new transaction is a second copy: the at-least-once case', async () => {
    const broker = new FakeBroker();
    const { kafka } = kafkaOver(broker);
    const producer = await connectTransactionalProducer(kafka, 'tx-1', 10_000);
    broker.fail('endTxn', connectionLost, { afterDoing: true });
    await expect(producer.send([valued('a')])).rejects.toMatchObject({ retryable: true });
    await producer.send([valued('a')]);
    expect(broker.committed).toEqual(['a', 'a']);
    expect(broker.aborted).toEqual([]);
  });

  it('when a produce request of the transaction fails, then its producer ends nothing (no EndTxn, which could fail in turn and leave it ABORTING): the next send goes through a new producer, whose initialisation aborts what the first wrote', async () => {
    const broker = new FakeBroker();
    const { kafka, producers } = kafkaOver(broker);
    const producer = await connectTransactionalProducer(kafka, 'tx-1', 10_000);
    // Written, its answer lost, and so is kafkajs' retry's: it gives up.
    broker.fail('produce', connectionLost, { afterDoing: true, times: 2 });
    const first = producer.send([valued('a')]);
    await expect(first).rejects.toMatchObject({ retryable: true });
    await producer.send([valued('a')]);

    expect(broker.endTxnCalls).toEqual([{ producerEpoch: 1, commit: true }]);
    expect(producers).toHaveLength(2);
    expect(producers[0]?.disconnected).toBe(true);
    expect(broker.aborted).toEqual(['a', 'a']);
    expect(broker.committed).toEqual(['a']);
  });

  it('when beginning the transaction is refused for good, then send rejects with a permanent KafkaWriteFailed', async () => {
    const { kafka } = kafkaWhoseTransactions(() => Promise.reject(refusedForGood()));
    const producer = await connectTransactionalProducer(kafka, 'tx-1', 10_000);
    const sent = producer.send([record]);
    await expect(sent).rejects.toBeInstanceOf(KafkaWriteFailed);
    await expect(sent).rejects.toMatchObject({
      retryable: false,
      details: { kafkaError: 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', permanent: true },
    });
  });

  it('when beginning the transaction fails for a reason that may pass, then send rejects with a retryable KafkaWriteFailed', async () => {
    const { kafka } = kafkaWhoseTransactions(() =>
      Promise.reject(
        new KafkaJSNumberOfRetriesExceeded(new Error('Connection timeout'), {
          retryCount: 5,
          retryTime: 30_000,
        }),
      ),
    );
    const producer = await connectTransactionalProducer(kafka, 'tx-1', 10_000);
    await expect(producer.send([record])).rejects.toMatchObject({
      retryable: true,
      details: { kafkaError: 'KafkaJSNumberOfRetriesExceeded', permanent: false },
    });
  });

  it('when connecting the replacement fails (the broker still gone), then the send rejects and the next one tries a new producer again', async () => {
    const broker = new FakeBroker();
    const { kafka, producers } = kafkaOver(broker);
    const producer = await connectTransactionalProducer(kafka, 'tx-1', 10_000);
    broker.fail('endTxn', connectionLost);
    await expect(producer.send([valued('a')])).rejects.toMatchObject({ retryable: true });
    const connect = vi.fn(() => Promise.reject(connectionLost()));
    const once = kafka.producer.bind(kafka);
    vi.spyOn(kafka, 'producer').mockImplementationOnce((config) => {
      const made = once(config);
      made.connect = connect;
      return made;
    });
    await expect(producer.send([valued('a')])).rejects.toMatchObject({ retryable: true });
    expect(connect).toHaveBeenCalledOnce();
    expect(producers[1]?.disconnected).toBe(true);
    await producer.send([valued('a')]);
    expect(producers).toHaveLength(3);
    expect(broker.committed).toEqual(['a']);
  });
});

describe('fencing a transactional id', () => {
  /** A holder of tx-1 whose transaction is begun and produced, its EndTxn not sent yet. */
  async function holderMidTransaction(kafka: Kafka) {
    const holder = kafka.producer({ transactionalId: 'tx-1', idempotent: true });
    await holder.connect();
    const transaction = await holder.transaction();
    await transaction.send({ topic: 't', messages: [{ value: 'late' }] });
    return transaction;
  }

  it("when a producer's process stalls between its produce request and its commit, then kafkajs commits once it goes on, whatever happened meanwhile: why a successor fences it", async () => {
    const broker = new FakeBroker();
    const transaction = await holderMidTransaction(kafkaOver(broker).kafka);
    await transaction.commit();
    expect(broker.committed).toEqual(['late']);
  });

  it("when another producer fences the id, then the holder's open transaction is aborted and its commit refused; the fencing one writes nothing and is disconnected", async () => {
    const broker = new FakeBroker();
    const { kafka, producers } = kafkaOver(broker);
    const transaction = await holderMidTransaction(kafka);
    await fenceTransactionalId(kafka, 'tx-1', 10_000);
    await expect(transaction.commit()).rejects.toThrow('old epoch');
    expect(broker.committed).toEqual([]);
    expect(broker.aborted).toEqual(['late']);
    expect(broker.endTxnCalls).toEqual([{ producerEpoch: 0, commit: true }]);
    expect(producers.map((p) => [p.config.transactionalId, p.disconnected])).toEqual([
      ['tx-1', false],
      ['tx-1', true],
    ]);
  });

  it('when the broker cannot be asked, then it rejects with a retryable KafkaWriteFailed and the fencing producer is disconnected', async () => {
    const broker = new FakeBroker();
    const { kafka, producers } = kafkaOver(broker);
    vi.spyOn(broker, 'initProducerId').mockRejectedValue(connectionLost());
    await expect(fenceTransactionalId(kafka, 'tx-1', 10_000)).rejects.toMatchObject({
      retryable: true,
    });
    expect(producers[0]?.disconnected).toBe(true);
  });
});

describe('idempotent producer', () => {
  /** kafkajs' Kafka whose producers' sends do what `sendBatch` says; each producer numbered. */
  function kafkaWhoseSends(sendBatch: (producer: number) => Promise<unknown>) {
    const producers: Array<{ disconnect: ReturnType<typeof vi.fn> }> = [];
    const kafka = {
      producer: () => {
        const index = producers.length;
        const producer = {
          connect: vi.fn(async () => {}),
          disconnect: vi.fn(async () => {}),
          sendBatch: vi.fn(() => sendBatch(index)),
        };
        producers.push(producer);
        return producer;
      },
    } as unknown as Kafka;
    return { kafka, producers };
  }

  it("when a send is refused for good, then the next send goes through a new producer: the old one's sequence numbers are unusable", async () => {
    const { kafka, producers } = kafkaWhoseSends((producer) =>
      producer === 0 ? Promise.reject(refusedForGood()) : Promise.resolve(written),
    );
    const producer = await connectProducer(kafka);
    await expect(producer.send([record])).rejects.toMatchObject({ details: { permanent: true } });
    await expect(producer.send([record])).resolves.toBeUndefined();
    expect(producers).toHaveLength(2);
    expect(producers[0]?.disconnect).toHaveBeenCalledOnce();
  });

  it('when a send fails for a reason that may pass, then the same producer is kept', async () => {
    let calls = 0;
    const { kafka, producers } = kafkaWhoseSends(() =>
      calls++ === 0
        ? Promise.reject(
            new KafkaJSNumberOfRetriesExceeded(new Error('Connection timeout'), {
              retryCount: 5,
              retryTime: 30_000,
            }),
          )
        : Promise.resolve(written),
    );
    const producer = await connectProducer(kafka);
    await expect(producer.send([record])).rejects.toMatchObject({ retryable: true });
    await expect(producer.send([record])).resolves.toBeUndefined();
    expect(producers).toHaveLength(1);
  });
});
