/**
 * Events as CloudEvents 1.0 in Kafka binary mode: the attributes in `ce_*` headers, the data as
 * the JSON value, the bizId as the key. Data is parsed with its EVENTS schema before it goes out.
 */

import { EventInvalid } from '../errors.js';
import type { PendingEvent } from '../handlers/types.js';
import type { InboundRecord, OutboundRecord, RecordHeaders } from '../kafka/index.js';
import { invalidFields } from '../schemas/issues.js';
import { EVENTS, type EventType, eventId } from '../schemas/messages/index.js';

export const SPEC_VERSION = '1.0';
export const CONTENT_TYPE = 'application/json';

export interface EventAddress {
  readonly topic: string;
  /** ce_source */
  readonly source: string;
  /** What the event is about; also its key. Absent only for a record too broken to tell. */
  readonly bizId: string | undefined;
  /** ce_correlationid, and the base of ce_id. */
  readonly commandId: string;
}

/** @throws EventInvalid when the data breaks its schema. */
export function encodeEvent(
  event: PendingEvent,
  address: EventAddress,
  now: Date = new Date(),
): OutboundRecord {
  const parsed = EVENTS[event.type].data.safeParse(event.data);
  if (!parsed.success) {
    throw new EventInvalid(`event ${event.type} does not match its schema`, {
      details: { type: event.type, fields: invalidFields(parsed.error) },
    });
  }
  const headers: Record<string, string> = {
    ce_specversion: SPEC_VERSION,
    ce_id: eventId(address.commandId, event.step),
    ce_type: event.type,
    ce_source: address.source,
    ce_time: now.toISOString(),
    ce_correlationid: address.commandId,
    'content-type': CONTENT_TYPE,
  };
  if (address.bizId !== undefined) headers.ce_subject = address.bizId;
  return {
    topic: address.topic,
    key: address.bizId ?? null,
    value: JSON.stringify(parsed.data),
    headers,
  };
}

export interface CloudEvent {
  readonly id: string;
  readonly type: EventType;
  readonly source: string;
  readonly subject: string | undefined;
  readonly time: string;
  readonly correlationId: string | undefined;
  readonly data: unknown;
}

/** Undefined for a record that is not one of our CloudEvents. */
export function decodeEvent(
  record: Pick<InboundRecord, 'headers' | 'value'>,
): CloudEvent | undefined {
  const header = (name: string) => headerText(record.headers, name);
  const [id, type, source, time] = ['ce_id', 'ce_type', 'ce_source', 'ce_time'].map(header);
  if (header('ce_specversion') !== SPEC_VERSION || !id || !source || !time) return undefined;
  if (type === undefined || !(type in EVENTS) || record.value === null) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(record.value.toString());
  } catch {
    return undefined;
  }
  const subject = header('ce_subject');
  const correlationId = header('ce_correlationid');
  return { id, type: type as EventType, source, subject, time, correlationId, data };
}

export function headerText(headers: RecordHeaders, name: string): string | undefined {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}
