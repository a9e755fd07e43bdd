// Run inside a service that installed the packed package (test/sdk/package.test.ts): it reads
// its own kafkajs' protocol code, then uses the SDK as a service would (a command sent, the
// event it ended with awaited), then reads the same code again, and prints on one JSON line
// what it saw. kafkajs is loaded first on purpose: that is the order in which run-time swaps
// used to apply halfway.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** kafkajs' modules that encode, decode, group and send records: the host's own copies. */
const MODULES = [
  'kafkajs/src/protocol/encoder.js',
  'kafkajs/src/protocol/decoder.js',
  'kafkajs/src/protocol/recordBatch/record/v0/decoder.js',
  'kafkajs/src/protocol/recordBatch/header/v0/decoder.js',
  'kafkajs/src/protocol/requests/produce/v3/request.js',
  'kafkajs/src/producer/groupMessagesPerPartition.js',
  'kafkajs/src/producer/sendMessages.js',
  'kafkajs/src/network/requestQueue/index.js',
];

const digest = (text) => createHash('sha256').update(text).digest('hex');

/** The source of every function the module exports, its statics and its prototype's methods. */
function codeOf(exported) {
  const parts = [];
  const visit = (owner, name) => {
    if (!owner) return;
    for (const key of Reflect.ownKeys(owner)) {
      const descriptor = Object.getOwnPropertyDescriptor(owner, key);
      for (const value of [descriptor?.value, descriptor?.get, descriptor?.set]) {
        if (typeof value === 'function') parts.push(`${name}.${String(key)}=${value}`);
      }
    }
  };
  if (typeof exported === 'function') parts.push(String(exported));
  visit(exported, 'static');
  visit(exported?.prototype, 'prototype');
  return digest(parts.join('\n'));
}

function snapshot() {
  return Object.fromEntries(
    MODULES.map((path) => {
      const exported = require(path);
      return [path, { exported, code: codeOf(exported) }];
    }),
  );
}

const before = snapshot();
const files = Object.fromEntries(
  MODULES.map((path) => [path, digest(readFileSync(require.resolve(path)))]),
);

const { CommandProducer, EventSubscriber, topicNames } = await import('signing-bridge');
const brokers = process.env.KAFKA_BROKERS.split(',');
const topics = topicNames(process.env.TOPIC_PREFIX);
const subscriber = await EventSubscriber.start({ brokers }, { topics });
const producer = await CommandProducer.connect({ brokers }, { topics });
let outcome;
try {
  const sent = await producer.send('create-contract', {
    bizId: `host-probe-${process.version}-${Date.now()}`,
    payload: {
      contract: {
        subject: 'Host probe',
        signatories: [
          {
            tenantType: 'PERSONAL',
            tenantName: 'Probe',
            receiver: { contact: '13900000002', contactType: 'MOBILE' },
          },
        ],
      },
    },
  });
  outcome = await subscriber.waitForOutcome(sent, { timeoutMs: 60_000 });
} finally {
  await producer.close();
  await subscriber.stop();
}

const after = snapshot();
console.log(
  JSON.stringify({
    node: process.version,
    outcome: outcome.type,
    files,
    modules: MODULES.map((path) => ({
      path,
      sameExport: before[path].exported === after[path].exported,
      codeBefore: before[path].code,
      codeAfter: after[path].code,
    })),
  }),
);
