/**
 * The AsyncAPI 3.0 description of the bridge's topics, built from the topic table, the event
 * table and the producers' header constants: what it receives, what it sends, with which
 * headers and keys, on which servers, and how each topic is configured.
 */
import { z } from 'zod';
import {
  CAREFUL_KEY,
  FORWARDED_KEY,
  LOGS_KEY,
  OWNERSHIP_KEY_PREFIX,
} from '../../ledger/ledger-record.js';
import { EVENTS, type EventType } from '../messages/events.js';
import {
  CarefulRun,
  CommandLogs,
  ForwardedUpTo,
  LedgerEntry,
  OwnershipMarker,
} from '../messages/ledger.js';
import { COMMANDS, type TopicNames, topicNames } from '../messages/topics.js';
import { cloudEventHeaders, deadLetterHeaders } from './asyncapi-headers.js';
import {
  KAFKA_BINDING_VERSION,
  kafkaServers,
  SECURITY_SCHEMES,
  topicBinding,
} from './asyncapi-kafka.js';
import {
  type CommandKind,
  commandDescription,
  commandSchemaBody,
  eventDescription,
  eventSchemaBody,
  type JsonSchema,
} from './json-schemas.js';

const BIZ_ID = 'the bizId: it orders and partitions a contract (murmur2, as Java clients do)';
const keyBinding = (key: JsonSchema) => ({
  kafka: { key, bindingVersion: KAFKA_BINDING_VERSION },
});
const BIZ_ID_KEY = keyBinding({ type: 'string', description: BIZ_ID });
const NULLABLE_KEY = keyBinding({
  type: ['string', 'null'],
  description: `${BIZ_ID}; null for a record that had no key and no readable bizId`,
});
/** The commandId travels in ce_correlationid: what a reply-waiting producer matches on. */
const CORRELATION = { location: '$message.header#/ce_correlationid' };

const camel = (name: string) => name.replace(/[.-](\w)/g, (_, c: string) => c.toUpperCase());
const ref = (path: string) => ({ $ref: `#/${path}` });
const eventMessageId = (type: EventType) => camel(type.replace('signingbridge.', ''));

function commandChannels(topics: TopicNames) {
  const channels: JsonSchema = {};
  const operations: JsonSchema = {};
  const messages: JsonSchema = {};
  for (const type of Object.keys(COMMANDS) as CommandKind[]) {
    const id = camel(`${type}-command`);
    messages[id] = {
      name: type,
      title: `${type} command`,
      summary: COMMANDS[type].summary,
      description: commandDescription(type),
      payload: commandSchemaBody(type, 'draft-7'),
      bindings: BIZ_ID_KEY,
    };
    channels[id] = {
      address: topics.commands[type],
      messages: { [id]: ref(`components/messages/${id}`) },
      bindings: topicBinding(topics.commands[type], 'commands'),
    };
    operations[camel(`receive-${type}`)] = {
      action: 'receive',
      summary: COMMANDS[type].summary,
      channel: ref(`channels/${id}`),
    };
  }
  return { channels, operations, messages };
}

function eventMessages(): JsonSchema {
  const messages: JsonSchema = {};
  for (const type of Object.keys(EVENTS) as EventType[]) {
    messages[eventMessageId(type)] = {
      name: type,
      title: type,
      summary: EVENTS[type].summary,
      description: eventDescription(type),
      headers: cloudEventHeaders(type),
      payload: eventSchemaBody(type, 'draft-7'),
      correlationId: CORRELATION,
      bindings: type === 'signingbridge.command.rejected' ? NULLABLE_KEY : BIZ_ID_KEY,
    };
  }
  return messages;
}

const DEAD_LETTER = {
  name: 'dead-letter',
  title: 'Dead letter',
  summary: 'A command record the bridge could not read or that broke a rule',
  description:
    'Copied untouched (key, value and headers; cut to fit the topic only when over the limits, as dlq-truncated says), so it holds whatever the producer sent, personal data included. Restrict it with ACLs to the bridge (write) and the people who repair commands (read).',
  headers: deadLetterHeaders(),
  payload: { description: "The refused record's value, as it was (any bytes, or null)." },
  bindings: NULLABLE_KEY,
};

const LEDGER_RECORD = {
  name: 'ledger-record',
  title: 'Ledger record',
  summary:
    "The bridge's own state: per-bizId progress, ownership markers, careful runs, a partition's marks",
  description: `Written and read by the bridge alone; readable by operators. A bizId's entry is keyed by the bizId, an instance's ownership marker by "${OWNERSHIP_KEY_PREFIX}<instance>", a partition's careful-run record by "${CAREFUL_KEY}", its forwarded mark by "${FORWARDED_KEY}" and the extent of each command topic's log it has seen by "${LOGS_KEY}"; a null value deletes an entry, a marker or a careful-run record.`,
  payload: ledgerPayload(),
  bindings: keyBinding({ type: 'string' }),
};

function ledgerPayload(): JsonSchema {
  const records = z
    .union([LedgerEntry, OwnershipMarker, CarefulRun, ForwardedUpTo, CommandLogs])
    .nullable();
  const { $schema: _, ...body } = z.toJSONSchema(records, { target: 'draft-7', io: 'output' });
  return body;
}

export function asyncApiDocument(version: string, topics = topicNames()): JsonSchema {
  const commands = commandChannels(topics);
  const events = eventMessages();
  const eventRefs = Object.fromEntries(
    Object.keys(events).map((id) => [id, ref(`components/messages/${id}`)]),
  );
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'signing-bridge',
      version,
      description:
        'Commands in, signing-platform calls out, result and failure events keyed by bizId (CloudEvents 1.0, Kafka binary mode). Topic names are those of the default TOPIC_PREFIX.',
    },
    defaultContentType: 'application/json',
    servers: kafkaServers(),
    channels: {
      ...commands.channels,
      events: {
        address: topics.events,
        messages: eventRefs,
        bindings: topicBinding(topics.events, 'events'),
      },
      deadLetter: {
        address: topics.deadLetter,
        description: DEAD_LETTER.description,
        messages: { deadLetter: ref('components/messages/deadLetter') },
        bindings: topicBinding(topics.deadLetter, 'deadLetter'),
      },
      ledger: {
        address: topics.ledger,
        description: LEDGER_RECORD.description,
        messages: { ledgerRecord: ref('components/messages/ledgerRecord') },
        bindings: topicBinding(topics.ledger, 'ledger'),
      },
    },
    operations: {
      ...commands.operations,
      sendEvents: { action: 'send', channel: ref('channels/events') },
      sendDeadLetters: { action: 'send', channel: ref('channels/deadLetter') },
      writeLedger: { action: 'send', channel: ref('channels/ledger') },
      readLedger: { action: 'receive', channel: ref('channels/ledger') },
    },
    components: {
      messages: {
        ...commands.messages,
        ...events,
        deadLetter: DEAD_LETTER,
        ledgerRecord: LEDGER_RECORD,
      },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
