/**
 * Events as CloudEvents 1.0 in Kafka binary mode: the attributes in `ce_*` headers, the data as
 * the JSON value, the bizId as the key. Data is parsed with its EVENTS schema before it goes out.
 */

import { EventInvalid } from '../errors.js';
import type { OutboundRecord } from '../kafka/index.js';
import { compiled } from '../schemas/compiled.js';
import { invalidFields } from '../schemas/issues.js';
import {
  EVENTS,
  type EventType,
  eventId,
  type PendingEvent,
  type RecordPosition,
  schemaId,
} from '../schemas/messages/index.js';

export const SPEC_VERSION = '1.0';
export const CONTENT_TYPE = 'application/json';
/** W3C Trace Context, as Kafka headers: the trace of the command that published the event. */
export const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;

export const TRACE_HEADER_DESCRIPTIONS: Record<(typeof TRACE_HEADERS)[number], string> = {
  traceparent:
    "W3C Trace Context: the trace and span of the command that published the event. Only when the bridge traces (OTEL_TRACES_EXPORTER); the command's own traceparent, when it had one, is the span's parent",
  tracestate: "W3C Trace Context: the command's tracestate, passed on with traceparent",
};

/** The headers of an event, by CloudEvents attribute: the AsyncAPI document is built from these. */
export const CE_HEADERS = {
  specVersion: 'ce_specversion',
  id: 'ce_id',
  type: 'ce_type',
  source: 'ce_source',
  subject: 'ce_subject',
  time: 'ce_time',
  dataSchema: 'ce_dataschema',
  correlationId: 'ce_correlationid',
  contentType: 'content-type',
} as const;

export const CE_HEADER_DESCRIPTIONS: Record<keyof typeof CE_HEADERS, string> = {
  specVersion: 'CloudEvents version: 1.0',
  id: "<bizId>/<commandId>/<step>, each id with '%' and '/' escaped as %25 and %2F (a commandId is unique within its bizId); the event that ends a command adds @<topic>/<partition>/<offset> of the command record it ended. The same on every publication of one step of one command: deduplicate by it",
  type: 'The event type: its data schema and whether it ends the command',
  source: 'The bridge that published it (EVENT_SOURCE setting)',
  subject:
    'The bizId, as the record key. Absent when no bizId could be read: a command.rejected of a record without a key and without a readable bizId, whose key is then null',
  time: 'When the event was published (RFC 3339, UTC)',
  dataSchema:
    "The $id of the data's JSON Schema (urn:signing-bridge:schemas:<version>:events/<type>)",
  correlationId:
    'The commandId; for a rejected record without a readable commandId, <topic>/<partition>/<offset>',
  contentType: 'application/json: the value is the event data as JSON (UTF-8)',
};

/** Headers an event may lack: only ce_subject, when there is no bizId to put there. */
export const OPTIONAL_CE_HEADERS: ReadonlyArray<keyof typeof CE_HEADERS> = ['subject'];

export interface EventAddress {
  readonly topic: string;
  /** ce_source */
  readonly source: string;
  /** What the event is about; also its key. Absent only for a record too broken to tell. */
  readonly bizId: string | undefined;
  /** ce_correlationid; with the bizId, the base of ce_id. */
  readonly commandId: string;
  /** For the event that ends a command: the command record it ended (part of ce_id). */
  readonly ended?: RecordPosition | undefined;
  /** The command's trace context; only TRACE_HEADERS are taken from it. */
  readonly traceContext?: Readonly<Record<string, string>>;
}

// Every event names its type's schema: the ids are made once, not per event.
const DATA_SCHEMAS = Object.fromEntries(
  Object.keys(EVENTS).map((type) => [type, schemaId('events', type)]),
) as Record<EventType, string>;

/** @throws EventInvalid when the data breaks its schema. */
export function encodeEvent(
  event: PendingEvent,
  address: EventAddress,
  now: Date = new Date(),
): OutboundRecord {
  // The compiled copy: every event's data is checked, and valid data takes generated code.
  const parsed = compiled(EVENTS[event.type].data).safeParse(event.data);
  if (!parsed.success) {
    throw new EventInvalid(`event ${event.type} does not match its schema`, {
      details: { type: event.type, fields: invalidFields(parsed.error) },
    });
  }
  const headers: Record<string, string> = {
    [CE_HEADERS.specVersion]: SPEC_VERSION,
    [CE_HEADERS.id]: eventId(address, event.step, address.ended),
    [CE_HEADERS.type]: event.type,
    [CE_HEADERS.source]: address.source,
    [CE_HEADERS.time]: isoTime(now.getTime()),
    [CE_HEADERS.dataSchema]: DATA_SCHEMAS[event.type],
    [CE_HEADERS.correlationId]: address.commandId,
    [CE_HEADERS.contentType]: CONTENT_TYPE,
  };
  if (address.bizId !== undefined) headers[CE_HEADERS.subject] = address.bizId;
  for (const name of TRACE_HEADERS) {
    const value = address.traceContext?.[name];
    if (value) headers[name] = value;
  }
  return {
    topic: address.topic,
    key: address.bizId ?? null,
    value: JSON.stringify(parsed.data),
    headers,
  };
}

// The second isoTime last formatted, and its text up to the milliseconds.
let isoSecond = Number.NaN;
let isoPrefix = '';

/**
 * `Date.prototype.toISOString`, the same text: events of one second share its formatting (the
 * date builtin is a runtime call, some 20 times dearer than joining the milliseconds on).
 */
export function isoTime(ms: number): string {
  const second = Math.floor(ms / 1_000);
  if (second !== isoSecond) {
    // Up to and with the '.': every year's format ends in `.sssZ`.
    isoPrefix = new Date(second * 1_000).toISOString().slice(0, -4);
    isoSecond = second;
  }
  return `${isoPrefix}${String(ms - second * 1_000).padStart(3, '0')}Z`;
}
