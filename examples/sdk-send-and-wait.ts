/**
 * The SDK as another service uses it: sends a create-contract to the bridge, waits for the event
 * it ends with, and prints it. KAFKA_BROKERS (default localhost:9092) and TOPIC_PREFIX (default
 * signing-bridge.) say where the bridge's topics are. `npm run example:sdk` runs it here; the
 * package test compiles and runs this very file against the published package.
 */
import { CommandProducer, EventSubscriber, topicNames } from 'signing-bridge';

const brokers = (process.env.KAFKA_BROKERS || 'localhost:9092').split(',');
const topics = topicNames(process.env.TOPIC_PREFIX || undefined);

// Subscribe first: the outcome is then read whenever it comes.
const subscriber = await EventSubscriber.start({ brokers }, { topics });
const producer = await CommandProducer.connect({ brokers }, { topics });
try {
  const sent = await producer.send('create-contract', {
    bizId: `lease-${Date.now()}`,
    payload: {
      contract: {
        subject: 'Apartment lease',
        signatories: [
          {
            tenantType: 'PERSONAL',
            tenantName: 'Chen Jing',
            receiver: { contact: '13900000001', contactType: 'MOBILE' },
          },
        ],
      },
    },
  });
  console.log(
    `sent ${sent.commandId} to ${sent.topic}, partition ${sent.partition}, offset ${sent.offset}`,
  );
  const outcome = await subscriber.waitForOutcome(sent, { timeoutMs: 60_000 });
  if (outcome.type === 'signingbridge.contract.created') {
    console.log(
      `contract ${outcome.data.contractId} created (initiated: ${outcome.data.initiated})`,
    );
  } else {
    console.log(`ended with ${outcome.type}`);
  }
  console.log(JSON.stringify({ type: outcome.type, data: outcome.data }));
} finally {
  await producer.close();
  await subscriber.stop();
}
