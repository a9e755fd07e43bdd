import { describe, expect, it } from 'vitest';
import { CommandInvalid } from '../../errors.js';
import { rejectedEvent } from '../../events/index.js';
import { deadLetterRecord, encodeEvent, TRACE_HEADERS } from '../../producers/index.js';
import { EVENT_EXAMPLES } from '../messages/examples.js';
import { asyncApiDocument } from './asyncapi.js';
import type { JsonSchema } from './json-schemas.js';

const doc = asyncApiDocument('0.0.0');
const messages = (doc.components as { messages: Record<string, JsonSchema> }).messages;
const headersOf = (id: string) =>
  messages[id]?.headers as { properties: Record<string, unknown>; required: string[] };
const address = {
  topic: 'events',
  source: 'signing-bridge',
  bizId: 'order-4711',
  commandId: 'c-1',
};
const invalid = new CommandInvalid('not JSON', {
  details: {
    topic: 't',
    partition: 0,
    offset: '1',
    reason: 'not-json',
    fields: [],
    fieldsOmitted: 0,
  },
});
const rejected = rejectedEvent({ commandType: 'approve' }, invalid, {
  topic: 't',
  partition: 0,
  offset: '1',
});

describe('the AsyncAPI headers are those the producers write', () => {
  it('when a result event of a traced command is encoded, then it has every declared header and no other, all required but the trace context', () => {
    const traceContext = {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'vendor=x',
    };
    const record = encodeEvent(
      {
        type: 'signingbridge.reminder.sent',
        step: 'remind',
        data: EVENT_EXAMPLES['signingbridge.reminder.sent'],
      },
      { ...address, traceContext },
    );
    const declared = headersOf('reminderSent');
    const written = Object.keys(record.headers ?? {}).sort();
    expect(written).toEqual(Object.keys(declared.properties).sort());
    const untraced = written.filter((name) => !(TRACE_HEADERS as readonly string[]).includes(name));
    expect([...declared.required].sort()).toEqual(untraced);
  });

  it('when a record without key or bizId is rejected, then its event lacks ce_subject and the document allows that and a null key', () => {
    const record = encodeEvent(rejected, { ...address, bizId: undefined });
    const declared = headersOf('commandRejected');
    expect(record.key).toBeNull();
    expect([...declared.required].sort()).toEqual(Object.keys(record.headers ?? {}).sort());
    expect(Object.keys(declared.properties)).toContain('ce_subject');
    expect(messages.commandRejected?.bindings).toMatchObject({
      kafka: { key: { type: ['string', 'null'] } },
    });
  });

  it('when a dead letter is written whole, then its headers are exactly the declared ones that are required; cut to fit, it adds the declared optional ones', () => {
    const record = {
      topic: 't',
      partition: 0,
      offset: '1',
      key: null,
      value: Buffer.alloc(2_000, 'x'),
      headers: {},
      timestamp: '0',
    };
    const limits = {
      maxRecordBytes: 1_048_588,
      maxKeyBytes: 1_024,
      maxHeaders: 64,
      maxHeaderBytes: 16_384,
    };
    const whole = deadLetterRecord(record, invalid, 'dead-letter', limits);
    const cut = deadLetterRecord(record, invalid, 'dead-letter', {
      ...limits,
      maxRecordBytes: 1_000,
    });
    const declared = headersOf('deadLetter');
    expect([...declared.required].sort()).toEqual(Object.keys(whole.headers ?? {}).sort());
    expect(Object.keys(declared.properties).sort()).toEqual(Object.keys(cut.headers ?? {}).sort());
  });
});

describe('the AsyncAPI servers and topics', () => {
  it('offers plain, TLS, mutual TLS and SASL servers, each naming its settings', () => {
    const servers = doc.servers as Record<string, { protocol: string; description: string }>;
    expect(Object.keys(servers)).toEqual(['plain', 'tls', 'mutualTls', 'sasl']);
    expect(servers.sasl?.description).toContain('KAFKA_SASL_MECHANISM');
    expect(servers.tls?.protocol).toBe('kafka-secure');
  });

  it('binds the ledger to a compacted topic with the agreed settings', () => {
    const channels = doc.channels as Record<string, { bindings: { kafka: JsonSchema } }>;
    expect(channels.ledger?.bindings.kafka).toMatchObject({
      partitions: 12,
      topicConfiguration: {
        'cleanup.policy': ['compact'],
        'segment.ms': 3_600_000,
        'min.cleanable.dirty.ratio': 0.1,
        'min.compaction.lag.ms': 0,
        'max.compaction.lag.ms': 86_400_000,
        'delete.retention.ms': 86_400_000,
      },
    });
    expect(channels.events?.bindings.kafka).toMatchObject({
      topicConfiguration: { 'cleanup.policy': ['delete'], 'retention.ms': 604_800_000 },
    });
  });
});
