/**
 * The local Kafka broker of the demo, in a process of its own (local-broker.ts starts it).
 * Prints one JSON line `{"brokers": [...], "version": "..."}` once the broker answers, and stops
 * the broker when its stdin closes: the demo asks so, or the demo died.
 */
import { startLocalKafka } from '../local-kafka/broker.js';

const stdinClosed = new Promise<void>((resolve) => {
  process.stdin.once('end', resolve);
  process.stdin.once('error', () => resolve());
  process.stdin.resume();
});

try {
  const kafka = await startLocalKafka();
  process.stdout.write(`${JSON.stringify({ brokers: kafka.brokers, version: kafka.version })}\n`);
  // Closed during the start already: the broker stops as soon as it is up.
  await stdinClosed;
  await kafka.stop();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
}
