import { describe, expect, it } from 'vitest';
import { topicNames } from '../schemas/messages/index.js';
import { compareTopics } from './differences.js';
import { DEFAULT_TOPIC_LAYOUT, topicTable } from './table.js';

const names = topicNames('t.');

describe('topicTable', () => {
  it("when nothing else is said, then every topic gets the partitions, command and event topics a week, dead letters a month, the ledger compaction; command records get the broker's times, the ledger's the writer's", () => {
    const table = topicTable(names, DEFAULT_TOPIC_LAYOUT);
    expect(table.map((row) => [row.topic, row.role])).toEqual([
      ...Object.values(names.commands).map((topic) => [topic, 'commands']),
      ['t.events', 'events'],
      ['t.dead-letter', 'deadLetter'],
      ['t.ledger', 'ledger'],
    ]);
    expect(new Set(table.map((row) => row.partitions))).toEqual(new Set([12]));
    for (const row of table.filter((r) => r.role === 'commands')) {
      expect(row.configs).toEqual({
        'cleanup.policy': 'delete',
        'retention.ms': '604800000',
        'message.timestamp.type': 'LogAppendTime',
      });
    }
    expect(table.find((row) => row.role === 'events')?.configs).toEqual({
      'cleanup.policy': 'delete',
      'retention.ms': '604800000',
    });
    expect(table.find((row) => row.role === 'deadLetter')?.configs['retention.ms']).toBe(
      '2592000000',
    );
    expect(table.find((row) => row.role === 'ledger')?.configs).toEqual({
      'cleanup.policy': 'compact',
      'segment.ms': '3600000',
      'min.cleanable.dirty.ratio': '0.1',
      'min.compaction.lag.ms': '0',
      'max.compaction.lag.ms': '86400000',
      'delete.retention.ms': '86400000',
      'message.timestamp.type': 'CreateTime',
    });
    expect(table.every((row) => row.replicationFactor === undefined)).toBe(true);
  });

  it('when replication is set, then every topic asks for it and for min.insync.replicas', () => {
    const table = topicTable(names, {
      ...DEFAULT_TOPIC_LAYOUT,
      replicationFactor: 3,
      minInsyncReplicas: 2,
    });
    for (const row of table) {
      expect(row.replicationFactor).toBe(3);
      expect(row.configs['min.insync.replicas']).toBe('2');
    }
  });
});

describe('compareTopics', () => {
  const [row] = topicTable(names, { ...DEFAULT_TOPIC_LAYOUT, replicationFactor: 3 });
  if (!row) throw new Error('no row');
  const exact = {
    topic: row.topic,
    partitions: 12,
    replicationFactor: 3,
    configs: { ...row.configs, 'segment.ms': '604800000' },
  };

  it('when the topic is as the table says, then nothing differs (entries the table does not set are not looked at)', () => {
    expect(compareTopics([row], new Map([[row.topic, exact]]))[0]?.differences).toEqual([]);
  });

  it('when the topic is missing, then that is the one difference', () => {
    expect(compareTopics([row], new Map())[0]).toMatchObject({
      actual: undefined,
      differences: [{ setting: 'exists', expected: 'yes', actual: 'no' }],
    });
  });

  it('when partitions, replication or an entry differ, then each is listed with both values', () => {
    const other = {
      ...exact,
      partitions: 6,
      replicationFactor: 1,
      configs: { 'cleanup.policy': 'compact' },
    };
    expect(compareTopics([row], new Map([[row.topic, other]]))[0]?.differences).toEqual([
      { topic: row.topic, setting: 'partitions', expected: '12', actual: '6' },
      { topic: row.topic, setting: 'replication.factor', expected: '3', actual: '1' },
      { topic: row.topic, setting: 'cleanup.policy', expected: 'delete', actual: 'compact' },
      { topic: row.topic, setting: 'retention.ms', expected: '604800000', actual: '(none)' },
      {
        topic: row.topic,
        setting: 'message.timestamp.type',
        expected: 'LogAppendTime',
        actual: '(none)',
      },
    ]);
  });

  it("when a command topic keeps its producers' times (CreateTime), then that is listed", () => {
    const created = {
      ...exact,
      configs: { ...exact.configs, 'message.timestamp.type': 'CreateTime' },
    };
    expect(compareTopics([row], new Map([[row.topic, created]]))[0]?.differences).toEqual([
      {
        topic: row.topic,
        setting: 'message.timestamp.type',
        expected: 'LogAppendTime',
        actual: 'CreateTime',
      },
    ]);
  });

  it('when no replication factor is asked for, then the broker default stands unchecked', () => {
    const [any] = topicTable(names, DEFAULT_TOPIC_LAYOUT);
    if (!any) throw new Error('no row');
    const described = { ...exact, replicationFactor: 1, configs: any.configs };
    expect(compareTopics([any], new Map([[any.topic, described]]))[0]?.differences).toEqual([]);
  });
});
