import { type Kafka, KafkaJSProtocolError } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import { connectPositionedProducer } from './positioned-producer.js';

/** kafkajs' Kafka whose n-th producer answers every send with `answers[n]` (or the last one). */
function fakeKafka(...answers: Array<() => Promise<unknown>>) {
  const made: Array<{ disconnect: () => Promise<void> }> = [];
  const producer = () => {
    const answer = answers[made.length] ?? (answers.at(-1) as () => Promise<unknown>);
    const one = { connect: async () => {}, disconnect: vi.fn(async () => {}), sendBatch: answer };
    made.push(one);
    return one;
  };
  return { kafka: { producer } as unknown as Kafka, made };
}

const tooLarge = () =>
  new KafkaJSProtocolError(
    Object.assign(new Error('The request included a message larger than the max message size'), {
      type: 'MESSAGE_TOO_LARGE',
      code: 10,
      retriable: false,
    }),
  );

const record = { topic: 't', key: 'k', value: 'v', partition: 2 };

describe('positioned producer', () => {
  it('when records of one partition go in one request, then they take consecutive offsets from its base', async () => {
    const { kafka } = fakeKafka(async () => [
      { topicName: 't', partition: 2, errorCode: 0, baseOffset: '40' },
      { topicName: 'u', partition: 0, errorCode: 0, baseOffset: '7' },
    ]);
    const producer = await connectPositionedProducer(kafka);
    const positions = await producer.send([
      record,
      { ...record, topic: 'u', partition: 0 },
      record,
    ]);
    expect(positions).toEqual([
      { topic: 't', partition: 2, offset: '40' },
      { topic: 'u', partition: 0, offset: '7' },
      { topic: 't', partition: 2, offset: '41' },
    ]);
  });

  it('when Kafka refuses a send for good, then it rejects as permanent and the next send goes through a new producer', async () => {
    const { kafka, made } = fakeKafka(
      () => Promise.reject(tooLarge()),
      async () => [{ topicName: 't', partition: 2, errorCode: 0, baseOffset: '0' }],
    );
    const producer = await connectPositionedProducer(kafka);
    await expect(producer.send([record])).rejects.toMatchObject({ details: { permanent: true } });
    await expect(producer.send([record])).resolves.toEqual([
      { topic: 't', partition: 2, offset: '0' },
    ]);
    expect(made).toHaveLength(2);
    expect(made[0]?.disconnect).toHaveBeenCalledOnce();
  });

  it('when two sends are called at once, then kafkajs is given the second only after the first settled, together with what queued meanwhile', async () => {
    let inFlight = 0;
    let mostAtOnce = 0;
    const batches: number[] = [];
    const { kafka } = fakeKafka(async () => {
      inFlight++;
      mostAtOnce = Math.max(mostAtOnce, inFlight);
      batches.push(batches.length);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      return [
        { topicName: 't', partition: 2, errorCode: 0, baseOffset: String(batches.length * 10) },
      ];
    });
    const producer = await connectPositionedProducer(kafka);
    const sent = await Promise.all([
      producer.send([record]),
      producer.send([record]),
      producer.send([record, record]),
    ]);
    expect(mostAtOnce).toBe(1);
    expect(sent).toEqual([
      [{ topic: 't', partition: 2, offset: '10' }],
      [{ topic: 't', partition: 2, offset: '20' }],
      [
        { topic: 't', partition: 2, offset: '21' },
        { topic: 't', partition: 2, offset: '22' },
      ],
    ]);
  });

  it('when disconnecting while sends are queued, then they are sent first', async () => {
    const { kafka, made } = fakeKafka(async () => [
      { topicName: 't', partition: 2, errorCode: 0, baseOffset: '0' },
    ]);
    const producer = await connectPositionedProducer(kafka);
    const sent = producer.send([record]);
    await producer.disconnect();
    await expect(sent).resolves.toEqual([{ topic: 't', partition: 2, offset: '0' }]);
    expect(made[0]?.disconnect).toHaveBeenCalledOnce();
  });
});
