/**
 * The bridge's events as a subscriber reads them: CloudEvents 1.0 in Kafka binary mode (the
 * attributes in `ce_*` headers, the data as the JSON value), decoded into one union of every
 * event type, its data parsed by that type's schema. Fields the schema does not know are
 * dropped, not refused, so a newer bridge adding a field breaks no subscriber.
 */
import { EventUndecodable, type InvalidField } from '../errors.js';
import { headerText, type RecordHeaders } from '../kafka/index.js';
import { CE_HEADERS, SPEC_VERSION } from '../producers/cloud-events.js';
import { invalidFields } from '../schemas/issues.js';
import {
  type CommandType,
  EVENTS,
  type EventData,
  type EventType,
  isTerminal,
} from '../schemas/messages/index.js';

/** A record as read from Kafka; a kafkajs message with its topic and partition is one. */
export interface KafkaRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: RecordHeaders | undefined;
  /** Milliseconds since the epoch, as a decimal string. */
  readonly timestamp: string;
}

export interface BridgeEventOf<T extends EventType> {
  readonly type: T;
  /**
   * ce_id: `<bizId>/<commandId>/<step>` (and `@<topic>/<partition>/<offset>` of the command
   * record, on the event that ends a command), the same each time a step is published.
   */
  readonly id: string;
  readonly source: string;
  /** ce_subject: the bizId (absent for a rejected record without a readable one). */
  readonly subject: string | undefined;
  /** ce_time, ISO 8601. */
  readonly time: string;
  /** ce_correlationid: the commandId (or the record position of an unreadable command). */
  readonly commandId: string | undefined;
  /** ce_dataschema: the `$id` of the data's JSON Schema (schemas/). */
  readonly dataSchema: string | undefined;
  readonly data: EventData<T>;
  /** Whether it ends its command (a document.added inside a create-contract does not). */
  readonly terminal: boolean;
  readonly record: {
    readonly topic: string;
    readonly partition: number;
    readonly offset: string;
    readonly timestamp: string;
    readonly key: string | undefined;
  };
}

/** Any event of the bridge; `type` tells which, and narrows `data`. */
export type BridgeEvent = { [T in EventType]: BridgeEventOf<T> }[EventType];

/** @throws EventUndecodable when the record is not an event of a type this SDK knows. */
export function decodeEvent(record: KafkaRecord): BridgeEvent {
  const header = (name: string) => headerText(record.headers ?? {}, name);
  const { id: ID, type: TYPE, source: SOURCE, time: TIME } = CE_HEADERS;
  const [id, type, source, time] = [ID, TYPE, SOURCE, TIME].map(header);
  const fail = (reason: EventUndecodable['details']['reason'], fields: InvalidField[] = []) =>
    undecodable(record, reason, type, fields);
  if (header(CE_HEADERS.specVersion) !== SPEC_VERSION || !id || !source || !time || !type) {
    throw fail('not-cloudevent');
  }
  if (!(type in EVENTS)) throw fail('unknown-type');
  const eventType = type as EventType;
  let json: unknown;
  try {
    json = JSON.parse(record.value?.toString() ?? '');
  } catch {
    throw fail('not-json');
  }
  const parsed = EVENTS[eventType].data.safeParse(json);
  if (!parsed.success) throw fail('schema', invalidFields(parsed.error));
  const data = parsed.data as EventData<EventType>;
  const { topic, partition, offset, timestamp } = record;
  return {
    type: eventType,
    id,
    source,
    subject: header(CE_HEADERS.subject),
    time,
    commandId: header(CE_HEADERS.correlationId),
    dataSchema: header(CE_HEADERS.dataSchema),
    data,
    terminal: isTerminal(eventType, (data as { commandType: CommandType }).commandType),
    record: { topic, partition, offset, timestamp, key: record.key?.toString() },
  } as BridgeEvent;
}

function undecodable(
  record: KafkaRecord,
  reason: EventUndecodable['details']['reason'],
  ceType: string | undefined,
  fields: InvalidField[],
): EventUndecodable {
  const { topic, partition, offset } = record;
  const what = {
    'not-cloudevent': 'not a CloudEvent (ce_specversion 1.0, ce_id, ce_type, ce_source, ce_time)',
    'unknown-type': `an event of a type this SDK does not know (${ceType})`,
    'not-json': 'an event whose data is not JSON',
    schema: `a ${ceType} event whose data breaks its schema`,
  }[reason];
  return new EventUndecodable(`${topic}/${partition}@${offset} is ${what}`, {
    details: { topic, partition, offset, reason, ceType, fields },
  });
}
