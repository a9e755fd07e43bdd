/**
 * Sends dead letters back to their source topics, untouched (key, value, their own headers), and
 * marks each as replayed on the dead-letter topic in the same Kafka transaction: a reader sees
 * both or neither, so a dead letter is never sent back twice, even when a replay dies midway.
 * One transactional id per dead-letter topic: a second replay fences the first, and reads the
 * journal only once the first's transaction has ended.
 */
import type { OutboundRecord, PositionedTransaction, RecordPosition } from '../../kafka/index.js';
import { REPLAY_MARKER_HEADERS } from '../../producers/dead-letter.js';
import type { DeadLetter } from '../../sdk/index.js';

// A record batch must fit the broker's message.max.bytes: send letters a few at a time.
const CHUNK_BYTES = 512 * 1024;
const MARKERS_PER_SEND = 500;

export function replayTransactionalId(deadLetterTopic: string): string {
  return `signing-bridge-dlq-replay.${deadLetterTopic}`;
}

export interface Replayed {
  readonly letter: DeadLetter;
  readonly to: RecordPosition;
}

/** Sends every letter back, marks it, and commits; nothing is visible before the commit. */
export async function replay(
  transaction: PositionedTransaction,
  letters: ReadonlyArray<DeadLetter & { source: { topic: string } }>,
  now: Date = new Date(),
): Promise<Replayed[]> {
  const replayed: Replayed[] = [];
  for (const chunk of chunks(letters)) {
    const positions = await transaction.send(chunk.map(republished));
    for (const [i, letter] of chunk.entries()) {
      replayed.push({ letter, to: positions[i] as RecordPosition });
    }
  }
  const markers = replayed.map((one) => marker(one, now));
  for (let start = 0; start < markers.length; start += MARKERS_PER_SEND) {
    await transaction.send(markers.slice(start, start + MARKERS_PER_SEND));
  }
  await transaction.commit();
  return replayed;
}

function republished(letter: DeadLetter & { source: { topic: string } }): OutboundRecord {
  const { key, value, headers } = letter.original;
  return { topic: letter.source.topic, key, value, headers };
}

function marker({ letter, to }: Replayed, now: Date): OutboundRecord {
  const { topic, partition, offset } = letter.record;
  return {
    topic,
    partition,
    key: letter.original.key,
    value: JSON.stringify({
      replayOf: { topic, partition, offset },
      republished: to,
      replayedAt: now.toISOString(),
    }),
    headers: {
      [REPLAY_MARKER_HEADERS.replayOf]: `${partition}/${offset}`,
      [REPLAY_MARKER_HEADERS.replayedAt]: now.toISOString(),
    },
  };
}

function* chunks<T extends DeadLetter>(letters: readonly T[]): Generator<T[]> {
  let chunk: T[] = [];
  let bytes = 0;
  for (const letter of letters) {
    const size = letter.original.value?.length ?? 0;
    if (chunk.length > 0 && bytes + size > CHUNK_BYTES) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(letter);
    bytes += size;
  }
  if (chunk.length > 0) yield chunk;
}
