import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TopicsRepartitioned } from '../errors.js';
import type { TopicAdmin, TopicDescription } from '../kafka/index.js';
import { PartitionWatch } from './partition-watch.js';

/** An admin whose topics have the counts given, changed by the test. */
function cluster(counts: Record<string, number>) {
  const admin = {
    describeTopics: async (topics: readonly string[]) =>
      new Map(
        topics.map((topic) => [
          topic,
          {
            topic,
            partitions: counts[topic],
            replicationFactor: 1,
            configs: {},
          } as TopicDescription,
        ]),
      ),
    disconnect: async () => {},
  } as unknown as TopicAdmin;
  return { admin: async () => admin };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('PartitionWatch', () => {
  it('when the counts are those of the start, then nothing is reported; once one changes, it is reported once, naming it', async () => {
    vi.useFakeTimers();
    const counts = { 'cmd.a': 4, 'cmd.b': 4, ledger: 4 };
    const onChange = vi.fn<(error: TopicsRepartitioned) => void>();
    const watch = new PartitionWatch({
      kafka: cluster(counts),
      topics: Object.keys(counts),
      partitions: 4,
      intervalMs: 1_000,
      onChange,
      log: pino({ level: 'silent' }),
    });
    watch.start();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(onChange).not.toHaveBeenCalled();
    counts['cmd.b'] = 8;
    await vi.advanceTimersByTimeAsync(3_000);
    expect(onChange).toHaveBeenCalledOnce();
    const [error] = onChange.mock.calls[0] ?? [];
    expect(error).toMatchObject({
      code: 'SB_ERR_KAFKA_TOPICS_REPARTITIONED',
      retryable: false,
      details: { changed: { 'cmd.b': { was: 4, now: 8 } } },
    });
    expect(error?.message).toContain('command partitions 4 and above are not consumed');
    expect(error?.message).toContain('signing-bridge topics grow --partitions 8 no longer refuses');
    watch.stop();
  });
});
