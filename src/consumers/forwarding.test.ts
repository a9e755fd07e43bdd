import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { heldLease } from '../../test/support/held-lease.js';
import { inboundRecord } from '../../test/support/inbound-record.js';
import { KafkaWriteFailed, PartitionReleased } from '../errors.js';
import { keyPartition, type OutboundRecord } from '../kafka/index.js';
import { PartitionTask } from '../partitions/index.js';
import { recordingOutbox } from '../producers/recording-outbox.js';
import { Forwarding, forwardingKey, forwardTarget } from './forwarding.js';
import { newJob } from './job.js';
import { DEFAULT_RECORD_LIMITS } from './record-limits.js';

const PARTITIONS = 12;
const topic = 't.commands.remind';

/** A bizId murmur2 puts on another partition than 0. */
function strayBizId(): string {
  for (let i = 0; ; i++) {
    if (keyPartition(Buffer.from(`biz-${i}`), PARTITIONS) !== 0) return `biz-${i}`;
  }
}

const record = (bizId: string | null, offset = '5', value = '{}') =>
  inboundRecord({ topic, offset, key: bizId, value });

/** Forwarding from the active partition 0, over an outbox whose sends `sink` takes or refuses. */
function forwardingFrom0(sink: (records: readonly OutboundRecord[]) => Promise<void>) {
  const sent: OutboundRecord[] = [];
  const outbox = recordingOutbox(sink, sent);
  const recordForwarded = vi.fn();
  const forwarding = new Forwarding({
    outbox,
    ledgerTopic: 't.ledger',
    observer: { recordForwarded },
    log: pino({ level: 'silent' }),
  });
  const task = new PartitionTask(0, { phase: 'active' }, heldLease);
  const job = (offset = '5') => {
    const stray = record(strayBizId(), offset);
    const made = newJob(stray, task, 'remind', 1_024);
    made.forwardTo = forwardTarget(stray, DEFAULT_RECORD_LIMITS, PARTITIONS);
    return made;
  };
  return { forwarding, task, sent, job, recordForwarded };
}

describe('which records are forwarded', () => {
  it('when a record is keyed for another partition, then it goes to that one; keyed for its own, without a key or over a limit, it stays', () => {
    const stray = strayBizId();
    const target = forwardTarget(record(stray), DEFAULT_RECORD_LIMITS, PARTITIONS);
    expect(target).toBe(keyPartition(Buffer.from(stray), PARTITIONS));
    let home = 'biz-0';
    for (let i = 0; keyPartition(Buffer.from(home), PARTITIONS) !== 0; i++) home = `biz-${i}`;
    expect(forwardTarget(record(home), DEFAULT_RECORD_LIMITS, PARTITIONS)).toBeUndefined();
    expect(forwardTarget(record(null), DEFAULT_RECORD_LIMITS, PARTITIONS)).toBeUndefined();
    const huge = record(stray, '5', 'x'.repeat(DEFAULT_RECORD_LIMITS.maxValueBytes + 1));
    expect(forwardTarget(huge, DEFAULT_RECORD_LIMITS, PARTITIONS)).toBeUndefined();
  });

  it('the records a partition forwards share one scheduling key, which no bizId can be', () => {
    expect(forwardingKey(record('a'))).toBe(forwardingKey(record('b', '9')));
    expect(forwardingKey(record('a')).startsWith(' ')).toBe(true);
  });
});

describe('Forwarding', () => {
  it('when a record is forwarded, then its copy and the mark go in one write, and the mark moves once Kafka has them', async () => {
    const { forwarding, task, sent, job, recordForwarded } = forwardingFrom0(async () => {});
    const forwarded = job('5');
    const going = forwarding.forward(forwarded, forwarded.forwardTo as number);
    expect(task.forwardedUpTo(topic)).toBe(-1n);
    expect(await going).toBe(true);
    expect(task.forwardedUpTo(topic)).toBe(5n);
    expect(sent.map((r) => [r.topic, r.partition])).toEqual([
      [topic, forwarded.forwardTo],
      ['t.ledger', 0],
    ]);
    expect(recordForwarded).toHaveBeenCalledOnce();
  });

  it('when the record is at or below the mark, then an earlier owner forwarded it: nothing is written', async () => {
    const { forwarding, task, sent, job } = forwardingFrom0(async () => {});
    task.markForwarded(topic, 7n);
    const old = job('7');
    expect(await forwarding.forward(old, old.forwardTo as number)).toBe(true);
    expect(sent).toEqual([]);
  });

  it('when Kafka refuses the copy for good, then it is not forwarded: the mark stays and the record runs here from now on', async () => {
    const refuse = async () => {
      throw new KafkaWriteFailed('too large', {
        details: { kafkaError: 'MESSAGE_TOO_LARGE', permanent: true },
      });
    };
    const { forwarding, task, job, recordForwarded } = forwardingFrom0(refuse);
    const refused = job('5');
    expect(await forwarding.forward(refused, refused.forwardTo as number)).toBe(false);
    expect(refused.forwardTo).toBeUndefined();
    expect(task.forwarded.has(topic)).toBe(false);
    expect(recordForwarded).not.toHaveBeenCalled();
  });

  it('when its partition is being released, then nothing is written and the record is left to the next owner', async () => {
    const { forwarding, task, sent, job } = forwardingFrom0(async () => {});
    task.close();
    const late = job('5');
    await expect(forwarding.forward(late, late.forwardTo as number)).rejects.toThrow(
      PartitionReleased,
    );
    expect(sent).toEqual([]);
  });
});
