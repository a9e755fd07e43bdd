/**
 * The AsyncAPI 3.0 description of the bridge's topics, built from the topic table and the
 * event table: what it receives, what it sends, and the CloudEvents headers it sets.
 */
import { EVENTS, type EventType } from '../messages/events.js';
import { COMMANDS, type TopicNames, topicNames } from '../messages/topics.js';
import { commandJsonSchema, eventJsonSchema, type JsonSchema } from './json-schemas.js';

const BIZ_ID_KEY = { type: 'string', description: 'bizId: orders and partitions a contract' };

const CLOUD_EVENT_HEADERS: JsonSchema = {
  type: 'object',
  required: ['ce_specversion', 'ce_id', 'ce_type', 'ce_source', 'ce_subject', 'ce_time'],
  properties: {
    ce_specversion: { type: 'string', const: '1.0' },
    ce_id: { type: 'string', description: '<commandId>/<step>: the same on every publication' },
    ce_type: { type: 'string', enum: Object.keys(EVENTS) },
    ce_source: { type: 'string' },
    ce_subject: { type: 'string', description: 'the bizId' },
    ce_time: { type: 'string', format: 'date-time' },
    ce_correlationid: { type: 'string', description: 'the commandId' },
    'content-type': { type: 'string', const: 'application/json' },
  },
};

const DEAD_LETTER_HEADERS: JsonSchema = {
  type: 'object',
  properties: {
    'dlq-reason': { type: 'string', description: 'why the record was refused' },
    'dlq-error-code': { type: 'string' },
    'dlq-source-topic': { type: 'string' },
    'dlq-source-partition': { type: 'string' },
    'dlq-source-offset': { type: 'string' },
    'dlq-failed-at': { type: 'string', format: 'date-time' },
  },
};

const camel = (name: string) => name.replace(/[.-](\w)/g, (_, c: string) => c.toUpperCase());

function commandChannels(topics: TopicNames) {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  for (const type of Object.keys(COMMANDS) as Array<keyof typeof COMMANDS>) {
    const id = camel(`${type}-command`);
    messages[id] = {
      name: type,
      summary: COMMANDS[type].summary,
      payload: commandJsonSchema(type),
      bindings: { kafka: { key: BIZ_ID_KEY } },
    };
    channels[id] = {
      address: topics.commands[type],
      messages: { [id]: { $ref: `#/components/messages/${id}` } },
    };
    operations[camel(`receive-${type}`)] = {
      action: 'receive',
      summary: COMMANDS[type].summary,
      channel: { $ref: `#/channels/${id}` },
    };
  }
  return { channels, operations, messages };
}

function eventMessages(): Record<string, unknown> {
  const messages: Record<string, unknown> = {};
  for (const type of Object.keys(EVENTS) as EventType[]) {
    messages[camel(type.replace('signingbridge.', ''))] = {
      name: type,
      summary: EVENTS[type].summary,
      headers: CLOUD_EVENT_HEADERS,
      payload: eventJsonSchema(type),
      bindings: { kafka: { key: BIZ_ID_KEY } },
    };
  }
  return messages;
}

export function asyncApiDocument(version: string, topics = topicNames()): JsonSchema {
  const commands = commandChannels(topics);
  const events = eventMessages();
  const eventRefs = Object.fromEntries(
    Object.keys(events).map((id) => [id, { $ref: `#/components/messages/${id}` }]),
  );
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'signing-bridge',
      version,
      description:
        'Commands in, signing-platform calls out, result and failure events keyed by bizId (CloudEvents 1.0, Kafka binary mode).',
    },
    defaultContentType: 'application/json',
    channels: {
      ...commands.channels,
      events: { address: topics.events, messages: eventRefs },
      deadLetter: {
        address: topics.deadLetter,
        description: 'Refused command records, copied untouched (key, value, headers).',
        messages: { deadLetter: { $ref: '#/components/messages/deadLetter' } },
      },
    },
    operations: {
      ...commands.operations,
      sendEvents: { action: 'send', channel: { $ref: '#/channels/events' } },
      sendDeadLetters: { action: 'send', channel: { $ref: '#/channels/deadLetter' } },
    },
    components: {
      messages: {
        ...commands.messages,
        ...events,
        deadLetter: {
          name: 'dead-letter',
          summary: 'A command record the bridge could not read or that broke a rule',
          headers: DEAD_LETTER_HEADERS,
          payload: {},
        },
      },
    },
  };
}
