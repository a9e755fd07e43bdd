import { type Kafka, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import { KafkaWriteFailed } from '../errors.js';
import { connectProducer, connectTransactionalProducer } from './producer.js';

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

describe('transactional producer', () => {
  it('when beginning the transaction is refused for good, then send rejects with a permanent KafkaWriteFailed', async () => {
    const { kafka } = kafkaWhoseTransactions(() => Promise.reject(refusedForGood()));
    const producer = await connectTransactionalProducer(kafka, 'tx-1', 10_000);
    const sent = producer.send([record]);
    await expect(sent).rejects.toBeInstanceOf(KafkaWriteFailed);
    await expect(sent).rejects.toMatchObject({
      retryable: false,
      details: { kafkaError: 'KafkaJSProtocolError', permanent: true },
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

  it('when sending within the transaction fails, then the transaction is aborted and the failure classified', async () => {
    const transaction = {
      sendBatch: vi.fn(() => Promise.reject(refusedForGood())),
      commit: vi.fn(async () => {}),
      abort: vi.fn(async () => {}),
    };
    const { kafka } = kafkaWhoseTransactions(async () => transaction);
    const producer = await connectTransactionalProducer(kafka, 'tx-1', 10_000);
    await expect(producer.send([record])).rejects.toMatchObject({
      details: { permanent: true },
    });
    expect(transaction.abort).toHaveBeenCalledOnce();
    expect(transaction.commit).not.toHaveBeenCalled();
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
