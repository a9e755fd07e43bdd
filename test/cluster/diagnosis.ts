/**
 * What to look at when the rolling-restart case fails: the commands ended twice or "outcome
 * unknown", sends that resolved but are not in the topic, commands left without an ending, each
 * with when it happened (seconds since /readyz was first asked), the cluster change under way
 * then, and what the bridge logged. Printed beside the failure; nothing here is asserted.
 */
import type { InboundRecord } from '../../src/kafka/index.js';
import type { BridgeProcess, ReceivedEvent } from '../support/bridge-harness.js';
import type { CommandStream } from './command-stream.js';
import { commandIdOf } from './read-back.js';
import type { ReadinessWatch } from './readiness-watch.js';

const SENT = 'signingbridge.reminder.sent';

/**
 * The commands ended more than once or "outcome unknown": when the ledger first shows them
 * started, each ending's type, partition@offset, when it was written and the change under way
 * then, and what the bridge logged (but connection errors) from 2 s before it started to 1 s after
 * its last ending.
 */
export function oddEndings(
  events: readonly ReceivedEvent[],
  started: ReadonlyMap<string, number>,
  bridge: BridgeProcess,
  watch: ReadinessWatch,
): string[] {
  const endings = new Map<string, ReceivedEvent[]>();
  for (const received of events) {
    const { commandId } = received.event;
    if (!received.terminal || commandId === undefined) continue;
    endings.set(commandId, [...(endings.get(commandId) ?? []), received]);
  }
  const odd = [...endings].filter(
    ([, ofCommand]) => ofCommand.length > 1 || ofCommand.some((e) => e.event.type !== SENT),
  );
  return odd.map(([commandId, ofCommand]) => {
    const times = ofCommand.map(({ event }) => Number(event.record.timestamp));
    const written = ofCommand.map(({ event, partition, offset }, n) => {
      const code = (event.data as { error?: { code?: string } }).error?.code ?? '';
      return `${event.type.split('.').at(-1)} ${code} ${partition}@${offset} ${when(times[n], watch)}`;
    });
    const at = started.get(commandId);
    const recorded = at === undefined ? 'never recorded started' : `started ${when(at, watch)}`;
    const from = (at ?? Math.min(...times)) - 2_000;
    const said = bridgeSaid(
      bridge,
      watch,
      (line) => line.time >= from && line.time <= Math.max(...times) + 1_000,
    );
    return `${commandId} (${recorded}) ${written.join(', ')}; the bridge said: ${said.join(', ') || 'nothing'}`;
  });
}

/** When the bridge said it lost its lease, and why. */
export function leasesLost(bridge: BridgeProcess, watch: ReadinessWatch): string {
  const lost = bridge.warnings.filter((line) => String(line.msg).startsWith('lease lost'));
  const times = lost.map((line) => {
    const why = String(line.msg).split(':')[1]?.split(';')[0]?.trim();
    return `${when(Number(line.time), watch)}: ${why}`;
  });
  return times.length > 0 ? times.join(', ') : 'no time';
}

/**
 * The sends that resolved but whose command is not in the topic: when each began and resolved,
 * the change under way then, and any event the bridge published for it.
 */
export function lostSends(
  stream: CommandStream,
  commands: readonly InboundRecord[],
  events: readonly ReceivedEvent[],
  watch: ReadinessWatch,
): string[] {
  const inTopic = new Set(commands.map(commandIdOf));
  return stream.sent
    .filter((s) => !inTopic.has(s.commandId))
    .map((s) => {
      const { begun, settled } = stream.times.get(s.commandId) ?? { begun: 0 };
      const published = events.filter((e) => e.event.commandId === s.commandId).length;
      return (
        `lost send ${s.commandId}: begun ${when(begun, watch)}, resolved ${when(settled, watch)} ` +
        `with ${s.partition}@${s.offset}; ${published} events of it`
      );
    });
}

/**
 * The command partitions of the commands left without an ending: how many each, from which
 * offset, and what the bridge's log says of the partition (acquired, released) and its warnings
 * and errors, with their times.
 */
export function unendedPartitions(
  unended: readonly string[],
  commands: readonly InboundRecord[],
  bridge: BridgeProcess,
  watch: ReadinessWatch,
): string[] {
  const left = new Set(unended);
  const byPartition = new Map<number, string[]>();
  for (const record of commands) {
    if (!left.has(commandIdOf(record) ?? '')) continue;
    byPartition.set(record.partition, [
      ...(byPartition.get(record.partition) ?? []),
      record.offset,
    ]);
  }
  return [...byPartition].map(([partition, offsets]) => {
    const said = bridgeSaid(
      bridge,
      watch,
      (line) => line.partition === partition || line.partition === undefined,
    );
    return (
      `${offsets.length} unended on command partition ${partition} from offset ${offsets[0]}; ` +
      `the bridge said: ${said.join(', ')}`
    );
  });
}

/** `at` (ms since the epoch) as seconds since /readyz was first asked, and the change then. */
function when(at: number | undefined, watch: ReadinessWatch): string {
  const change = at === undefined ? undefined : watch.changeAt(at)?.label;
  return `+${watch.seconds(at)} s${change ? ` (${change})` : ''}`;
}

/**
 * The bridge's log lines kept and its warnings and errors, in order, but kafkajs' connection
 * errors (one a retry, saying nothing of a partition), each with its partition and time.
 */
function bridgeSaid(
  bridge: BridgeProcess,
  watch: ReadinessWatch,
  which: (line: LogLine) => boolean,
): string[] {
  return [...bridge.kept, ...bridge.warnings]
    .filter((line) => line.namespace !== 'Connection' && line.namespace !== 'BrokerPool')
    .map(
      (line): LogLine => ({
        msg: String(line.msg),
        time: Number(line.time),
        partition: line.partition,
      }),
    )
    .filter(which)
    .sort((a, b) => a.time - b.time)
    .map((line) => {
      const partition = line.partition === undefined ? '' : ` ${line.partition}`;
      return `${line.msg}${partition} +${watch.seconds(line.time)} s`;
    });
}

interface LogLine {
  readonly msg: string;
  readonly time: number;
  readonly partition: unknown;
}
