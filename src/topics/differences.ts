/** What a cluster's topics have that the topic table does not ask for. */
import type { TopicDescription } from '../kafka/index.js';
import type { TopicRow } from './table.js';

export interface TopicDifference {
  readonly topic: string;
  /** `exists`, `partitions`, `replication.factor` or a configuration entry's name. */
  readonly setting: string;
  readonly expected: string;
  /** What the broker reports; `(none)` for a topic that does not exist or an entry not set. */
  readonly actual: string;
}

export interface TopicState {
  readonly row: TopicRow;
  /** Undefined when the topic does not exist. */
  readonly actual: TopicDescription | undefined;
  readonly differences: readonly TopicDifference[];
}

const NONE = '(none)';

export function compareTopics(
  rows: readonly TopicRow[],
  described: ReadonlyMap<string, TopicDescription>,
): TopicState[] {
  return rows.map((row) => {
    const actual = described.get(row.topic);
    return { row, actual, differences: differencesOf(row, actual) };
  });
}

function differencesOf(row: TopicRow, actual: TopicDescription | undefined): TopicDifference[] {
  const { topic } = row;
  if (!actual) return [{ topic, setting: 'exists', expected: 'yes', actual: 'no' }];
  const wanted: Array<[string, string | undefined, string]> = [
    ['partitions', String(row.partitions), String(actual.partitions)],
    ['replication.factor', optional(row.replicationFactor), String(actual.replicationFactor)],
    ...Object.entries(row.configs).map(([name, value]): [string, string, string] => [
      name,
      value,
      actual.configs[name] ?? NONE,
    ]),
  ];
  return wanted
    .filter(([, expected, found]) => expected !== undefined && expected !== found)
    .map(([setting, expected, found]) => ({
      topic,
      setting,
      expected: expected ?? '',
      actual: found,
    }));
}

function optional(value: number | undefined): string | undefined {
  return value === undefined ? undefined : String(value);
}
