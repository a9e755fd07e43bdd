/**
 * One bridge per test file, end to end: the real broker, the simulator, commands produced as
 * other services produce them, and the events topic read as a subscriber reads it.
 */
import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
import type { BridgeObserver, BridgeSettings } from '../../../src/consumers/index.js';
import type { Command, CommandType, TopicNames } from '../../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../../src/simulator/index.js';
import {
  CommandSender,
  createTopics,
  EventCollector,
  type InProcessBridge,
  type ReceivedEvent,
  startBridge,
  uniqueTopics,
} from '../../support/bridge-harness.js';

type ObserverCall = {
  [K in keyof BridgeObserver]-?: [K, ...Parameters<NonNullable<BridgeObserver[K]>>];
}[keyof BridgeObserver];

export interface EndToEnd {
  readonly sim: RunningSimulator;
  /** The topics of this bridge, of TEST_PARTITIONS partitions each. */
  readonly topics: TopicNames;
  readonly collector: EventCollector;
  /** What the bridge told its observer, in order. */
  readonly observed: ObserverCall[];
  /** Produces the command on its topic, keyed by its bizId; returns its commandId. */
  send(
    type: CommandType,
    raw: { commandId: string; bizId: string; payload: unknown },
  ): Promise<string>;
  /** Produces the command as given, unchecked (as a producer without the SDK may). */
  sendUnchecked(
    type: CommandType,
    raw: { commandId: string; bizId: string; payload: unknown },
  ): Promise<string>;
  /** The command's terminal event, once published. */
  ended(commandId: string, timeoutMs?: number): Promise<ReceivedEvent>;
  /** Every event of the command published so far, step events included. */
  eventsOf(commandId: string): ReceivedEvent[];
}

/** Registers the hooks; read the handle inside tests (it is filled in beforeAll). */
export function useEndToEnd(settings: Partial<BridgeSettings> = {}): EndToEnd {
  const brokers = inject('kafkaBrokers').split(',');
  const topics = uniqueTopics();
  const observed: ObserverCall[] = [];
  let sender: CommandSender;
  let bridge: InProcessBridge;
  const handle = { observed, topics } as { -readonly [K in keyof EndToEnd]: EndToEnd[K] };
  beforeAll(async () => {
    handle.sim = await startSimulator({ log: false });
    await createTopics(brokers, topics);
    sender = await CommandSender.connect(brokers, topics);
    handle.collector = await EventCollector.start(brokers, topics);
    bridge = await startBridge({
      brokers,
      topics,
      simulatorUrl: handle.sim.url,
      settings,
      observer: recordingObserver(observed),
    });
  });
  beforeEach(() => handle.sim.admin.setFaults({}));
  afterAll(async () => {
    await bridge?.stop();
    await handle.collector?.stop();
    await sender?.close();
    await handle.sim?.stop();
  });
  handle.send = async (type, raw) => {
    await sender.send([{ type, command: raw as Command }]);
    return raw.commandId;
  };
  handle.sendUnchecked = async (type, raw) => {
    await sender.sendRaw(topics.commands[type], raw.bizId, JSON.stringify(raw));
    return raw.commandId;
  };
  handle.ended = (commandId, timeoutMs) =>
    handle.collector.waitForTerminalEvent(commandId, timeoutMs);
  handle.eventsOf = (commandId) =>
    handle.collector.events.filter((e) => e.event.commandId === commandId);
  return handle;
}

function recordingObserver(calls: ObserverCall[]): BridgeObserver {
  return {
    commandFinished: (info) => calls.push(['commandFinished', info]),
    retryScheduled: (info) => calls.push(['retryScheduled', info]),
    consumptionPaused: (paused, reason) => calls.push(['consumptionPaused', paused, reason]),
    breakerStateChanged: (state, cause) =>
      calls.push(
        cause === undefined
          ? ['breakerStateChanged', state]
          : ['breakerStateChanged', state, cause],
      ),
    load: (inFlight, pending) => calls.push(['load', inFlight, pending]),
  };
}
