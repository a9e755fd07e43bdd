/**
 * End-to-end helpers against the real broker: topics of one's own, commands produced as other
 * services would (JSON, key = bizId), an in-process Bridge wired to a simulator, and a
 * read_committed consumer of the events and dead-letter topics that decodes CloudEvents.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  type Consumer,
  type IHeaders,
  Kafka,
  logLevel,
  Partitioners,
  type Producer,
} from 'kafkajs';
import { PDFDocument } from 'pdf-lib';
import pino, { type Logger } from 'pino';
import { SigningClient } from '../../src/api-client/index.js';
import {
  Bridge,
  type BridgeObserver,
  type BridgeSettings,
  defaultBridgeSettings,
} from '../../src/consumers/index.js';
import { createFileLoader } from '../../src/files/index.js';
import { createHandlers } from '../../src/handlers/index.js';
import { createKafkaConnection } from '../../src/kafka/index.js';
import { type CloudEvent, decodeEvent } from '../../src/producers/index.js';
import {
  type Command,
  type CommandType,
  isTerminal,
  type TopicNames,
  topicNames,
} from '../../src/schemas/messages/index.js';

export const DEMO_CREDENTIALS = { appToken: 'demo-app-token', appSecret: 'demo-app-secret' };
export const TEST_PARTITIONS = 4;

/**
 * Logs of the code under test, on stderr: warnings and errors only, unless BRIDGE_TEST_LOG
 * says otherwise.
 */
export function testLogger(name: string): Logger {
  return pino({ name, level: process.env.BRIDGE_TEST_LOG ?? 'warn' }, pino.destination(2));
}

/** A topic prefix no other test uses. */
export function uniquePrefix(): string {
  return `t-${randomUUID().slice(0, 8)}.`;
}

export function uniqueTopics(): TopicNames {
  return topicNames(uniquePrefix());
}

export async function createTopics(
  brokers: string[],
  topics: TopicNames,
  partitions = TEST_PARTITIONS,
): Promise<void> {
  const kafka = createKafkaConnection({ brokers, clientId: 'harness', log: testLogger('harness') });
  const admin = await kafka.admin();
  const spec = (topic: string, compacted = false) => ({ topic, partitions, compacted });
  await admin.ensureTopics([
    ...Object.values(topics.commands).map((topic) => spec(topic)),
    spec(topics.ledger, true),
    spec(topics.events),
    spec(topics.deadLetter),
  ]);
  await admin.disconnect();
}

function kafkaClient(brokers: string[]): Kafka {
  return new Kafka({ brokers, clientId: 'harness', logLevel: logLevel.NOTHING });
}

/** Produces commands the way other services do: JSON value, key = bizId, murmur2 partitioning. */
export class CommandSender {
  readonly #producer: Producer;
  readonly #topics: TopicNames;

  private constructor(producer: Producer, topics: TopicNames) {
    this.#producer = producer;
    this.#topics = topics;
  }

  static async connect(brokers: string[], topics: TopicNames): Promise<CommandSender> {
    const producer = kafkaClient(brokers).producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: false,
    });
    await producer.connect();
    return new CommandSender(producer, topics);
  }

  /** Sends in the order given; commands of one type and bizId keep that order in their topic. */
  async send(commands: ReadonlyArray<{ type: CommandType; command: Command }>): Promise<void> {
    const byTopic = new Map<string, Array<{ key: string; value: string }>>();
    for (const { type, command } of commands) {
      const topic = this.#topics.commands[type];
      const messages = byTopic.get(topic) ?? [];
      byTopic.set(topic, messages);
      messages.push({ key: command.bizId, value: JSON.stringify(command) });
    }
    const topicMessages = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
    await this.#producer.sendBatch({ topicMessages });
  }

  async sendRaw(
    topic: string,
    key: string | null,
    value: string | Buffer | null,
    headers?: IHeaders,
  ) {
    await this.#producer.send({ topic, messages: [{ key, value, headers }] });
  }

  close(): Promise<void> {
    return this.#producer.disconnect();
  }
}

export interface ReceivedEvent {
  readonly partition: number;
  readonly offset: string;
  readonly key: string | undefined;
  readonly event: CloudEvent;
  /** The event's data, as published. */
  readonly data: Record<string, unknown> & { commandId?: string; commandType?: CommandType };
  readonly terminal: boolean;
}

export interface DeadLetter {
  readonly key: string | undefined;
  readonly value: Buffer | null;
  readonly headers: Record<string, string>;
}

/** Reads the events and dead-letter topics from the beginning, as a read_committed subscriber. */
export class EventCollector {
  readonly events: ReceivedEvent[] = [];
  readonly deadLetters: DeadLetter[] = [];
  readonly #consumer: Consumer;
  readonly #terminals = new Map<string, ReceivedEvent[]>();
  #terminalCount = 0;
  #listeners = new Set<() => void>();

  private constructor(consumer: Consumer) {
    this.#consumer = consumer;
  }

  static async start(brokers: string[], topics: TopicNames): Promise<EventCollector> {
    const consumer = kafkaClient(brokers).consumer({
      groupId: `collector-${randomUUID()}`,
      maxWaitTimeInMs: 100,
    });
    const collector = new EventCollector(consumer);
    await consumer.connect();
    await consumer.subscribe({ topics: [topics.events, topics.deadLetter], fromBeginning: true });
    await consumer.run({
      eachBatch: async ({ batch }) => {
        for (const message of batch.messages) {
          if (batch.topic === topics.deadLetter) collector.#addDeadLetter(message);
          else collector.#addEvent(batch.partition, message);
        }
        for (const listener of collector.#listeners) listener();
      },
    });
    return collector;
  }

  /** Terminal events seen so far, repeats included. */
  get terminalCount(): number {
    return this.#terminalCount;
  }

  terminalEventsOf(commandId: string): ReceivedEvent[] {
    return this.#terminals.get(commandId) ?? [];
  }

  /** Resolves with the first terminal event of the command. */
  async waitForTerminalEvent(commandId: string, timeoutMs = 30_000): Promise<ReceivedEvent> {
    await this.waitUntil(() => this.terminalEventsOf(commandId).length > 0, timeoutMs, commandId);
    return this.terminalEventsOf(commandId)[0] as ReceivedEvent;
  }

  /** Resolves once every command has a terminal event. */
  async waitForTerminalEvents(commandIds: readonly string[], timeoutMs = 60_000): Promise<void> {
    const pending = new Set(commandIds);
    await this.waitUntil(
      () => {
        for (const id of pending) if (this.#terminals.has(id)) pending.delete(id);
        return pending.size === 0;
      },
      timeoutMs,
      () => `${pending.size} commands without a terminal event`,
    );
  }

  waitUntil(condition: () => boolean, timeoutMs: number, what: string | (() => string)) {
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!condition()) return;
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        const description = typeof what === 'string' ? what : what();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${description}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.#listeners.delete(check);
      };
      this.#listeners.add(check);
      check();
    });
  }

  stop(): Promise<void> {
    return this.#consumer.disconnect();
  }

  #addEvent(
    partition: number,
    message: { offset: string; key: Buffer | null; value: Buffer | null; headers?: IHeaders },
  ) {
    const event = decodeEvent({ headers: message.headers ?? {}, value: message.value });
    if (!event) throw new Error(`not a CloudEvent at events/${partition}@${message.offset}`);
    const data = event.data as ReceivedEvent['data'];
    const terminal = data.commandType !== undefined && isTerminal(event.type, data.commandType);
    const key = message.key?.toString();
    const received = { partition, offset: message.offset, key, event, data, terminal };
    this.events.push(received);
    if (terminal && event.correlationId !== undefined) {
      const ofCommand = this.#terminals.get(event.correlationId) ?? [];
      this.#terminals.set(event.correlationId, [...ofCommand, received]);
      this.#terminalCount++;
    }
  }

  #addDeadLetter(message: { key: Buffer | null; value: Buffer | null; headers?: IHeaders }) {
    const headers = Object.fromEntries(
      Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]),
    );
    this.deadLetters.push({ key: message.key?.toString(), value: message.value, headers });
  }
}

/**
 * The service in a child process, as deployed: `signing-bridge run` (src/cli/main.ts) with its
 * configuration in the environment, for tests that kill it. Its warnings and errors go to
 * stderr; it is ready once it logs that the bridge started.
 */
export class BridgeProcess {
  readonly exited: Promise<number | null>;
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess) {
    this.#child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static async start(options: {
    brokers: string[];
    prefix: string;
    groupId: string;
    simulatorUrl: string;
    /** More configuration variables, e.g. { PRECONDITION_TIMEOUT_MS: '60000' }. */
    env?: Record<string, string>;
  }): Promise<BridgeProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'run'], {
      env: {
        ...process.env,
        KAFKA_BROKERS: options.brokers.join(','),
        KAFKA_GROUP_ID: options.groupId,
        TOPIC_PREFIX: options.prefix,
        SIGNING_API_BASE_URL: options.simulatorUrl,
        SIGNING_APP_TOKEN: DEMO_CREDENTIALS.appToken,
        SIGNING_APP_SECRET: DEMO_CREDENTIALS.appSecret,
        SIGNING_RPS: '0',
        HTTP_PORT: '0',
        LOG_LEVEL: 'info',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const running = new BridgeProcess(child);
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout as Readable }).on('line', (line) => {
        if (line.includes('"msg":"bridge started"')) resolve();
        else if (/"level":(4|5|6)\d/.test(line)) process.stderr.write(`${line}\n`);
      });
      void running.exited.then((code) => reject(new Error(`bridge process exited with ${code}`)));
    });
    return running;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  kill(signal: NodeJS.Signals): void {
    this.#child.kill(signal);
  }
}

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

export interface InProcessBridge {
  readonly bridge: Bridge;
  readonly settings: BridgeSettings;
  stop(): Promise<void>;
}

/** A Bridge with the real handlers and client, pointed at a simulator. */
export async function startBridge(options: {
  brokers: string[];
  topics: TopicNames;
  simulatorUrl: string;
  settings?: Partial<BridgeSettings>;
  observer?: BridgeObserver;
  log?: Logger;
}): Promise<InProcessBridge> {
  const log = options.log ?? testLogger('bridge');
  const client = new SigningClient({
    baseUrl: options.simulatorUrl,
    ...DEMO_CREDENTIALS,
    requestsPerSecond: 0,
    retry: { maxAttempts: 1, initialDelayMs: 1, maxDelayMs: 5 },
  });
  const files = createFileLoader({
    allowedHosts: [],
    allowPrivate: false,
    maxBytes: 1_000_000,
    timeoutMs: 5_000,
    maxRedirects: 0,
  });
  const settings = testSettings(options.settings);
  const bridge = new Bridge({
    kafka: createKafkaConnection({ brokers: options.brokers, clientId: 'bridge-test', log }),
    topics: options.topics,
    handlers: createHandlers({ client, files }),
    settings,
    log,
    observer: options.observer,
  });
  await bridge.start();
  let stopped: Promise<void> | undefined;
  const stop = async () => {
    await bridge.stop();
    await client.close();
    await files.close();
  };
  return { bridge, settings, stop: () => (stopped ??= stop()) };
}

/** Defaults made quick for tests: short retries and handovers. */
export function testSettings(overrides: Partial<BridgeSettings> = {}): BridgeSettings {
  return defaultBridgeSettings({
    groupId: `bridge-${randomUUID().slice(0, 8)}`,
    retry: {
      maxAttempts: 4,
      maxElapsedMs: 10_000,
      policy: { initialDelayMs: 20, maxDelayMs: 200, multiplier: 2 },
    },
    precondition: {
      timeoutMs: 3_000,
      policy: { initialDelayMs: 50, maxDelayMs: 300, multiplier: 2 },
    },
    handoverTimeoutMs: 5_000,
    shutdownDeadlineMs: 10_000,
    commitIntervalMs: 200,
    ...overrides,
  });
}

let pdfBase64: Promise<string> | undefined;

/** A one-page PDF, base64, for file documents. */
export function samplePdf(): Promise<string> {
  pdfBase64 ??= (async () => {
    const doc = await PDFDocument.create();
    doc.addPage([200, 200]);
    return Buffer.from(await doc.save()).toString('base64');
  })();
  return pdfBase64;
}

export const PERSON = {
  tenantType: 'PERSONAL',
  tenantName: 'Person 1',
  receiver: { contact: '13900000001', contactType: 'MOBILE' },
} as const;

async function fileDocument(title: string) {
  return { source: 'file', title, fileSuffix: 'pdf', file: { base64: await samplePdf() } } as const;
}

/** Commands with the least that makes them valid. */
export const commands = {
  /** A draft with one person signing and, when asked, file documents titled `<bizId>/<n>`. */
  async createContract(bizId: string, options: { documents?: number; commandId?: string } = {}) {
    const titles = Array.from({ length: options.documents ?? 0 }, (_, n) => `${bizId}/${n}`);
    const payload = {
      contract: { subject: `Contract ${bizId}`, signatories: [PERSON] },
      documents: await Promise.all(titles.map(fileDocument)),
    };
    const command = { commandId: options.commandId ?? randomUUID(), bizId, payload };
    return { type: 'create-contract' as const, command: command as Command<'create-contract'> };
  },
  async addDocument(bizId: string, title: string, commandId = randomUUID()) {
    const command = { commandId, bizId, payload: await fileDocument(title) };
    return { type: 'add-document' as const, command: command as Command<'add-document'> };
  },
};
