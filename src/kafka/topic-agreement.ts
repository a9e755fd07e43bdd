/**
 * Topics just created are known to the controller first and to each broker a moment later, when
 * it applies the cluster's metadata. Until then a broker answers for them "does not host this
 * topic-partition" (UNKNOWN_TOPIC_OR_PARTITION) or lists them missing, and on a cluster the next
 * request (describing their settings, listing topics, producing) may well reach that broker. So
 * creating topics ends once every broker of the cluster lists each of them with a leader for
 * every partition: this module asks each broker alone and says which still lacks what.
 */
import { isIP, connect as netConnect } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { connect as tlsConnect } from 'node:tls';
import { type ISocketFactory, Kafka, type KafkaConfig, logLevel } from 'kafkajs';
import { TopicsLeaderless } from '../errors.js';

/** A broker of the cluster, as the cluster describes it. */
export interface BrokerAddress {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
}

/**
 * A kafkajs client whose every connection goes to this one broker, so that what it answers is
 * that broker's own view.
 */
export type ClientAt = (broker: BrokerAddress) => Kafka;

/**
 * Clients pinned to one broker, with the settings (TLS, SASL, client id) of `config`. kafkajs
 * sends a metadata request to whichever broker of the cluster it picks, so pinning the client's
 * brokers list is not enough: its sockets all go to the one broker, whatever host kafkajs names
 * (the TLS server name is that broker's, as kafkajs' own sockets do it).
 */
export function clientsAt(config: KafkaConfig): ClientAt {
  return (broker) =>
    new Kafka({
      ...config,
      brokers: [`${broker.host}:${broker.port}`],
      socketFactory: pinnedSocket(broker),
      // "Not yet" is an answer here, not a failure to log.
      logLevel: logLevel.NOTHING,
    });
}

export function pinnedSocket({ host, port }: BrokerAddress): ISocketFactory {
  return ({ ssl, onConnect }) => {
    const socket = ssl
      ? tlsConnect({ host, port, ...(isIP(host) ? {} : { servername: host }), ...ssl }, onConnect)
      : netConnect({ host, port }, onConnect);
    socket.setKeepAlive(true, 60_000);
    return socket;
  };
}

/**
 * What one broker answered (`who`: "broker 2"): the topics it listed, each partition's leader
 * (-1: none), or the error it answered with.
 */
export type BrokerAnswer =
  | {
      readonly who: string;
      readonly topics: ReadonlyArray<{
        readonly name: string;
        readonly partitions: ReadonlyArray<{ readonly leader: number }>;
      }>;
    }
  | { readonly who: string; readonly error: string };

/** For each broker that does not yet list every topic with leaders: what it lacks. */
export function lacking(
  topics: readonly string[],
  answers: readonly BrokerAnswer[],
): Map<string, string> {
  const found = new Map<string, string>();
  for (const answer of answers) {
    if ('error' in answer) {
      found.set(answer.who, `answered "${answer.error}"`);
      continue;
    }
    const listed = new Map(answer.topics.map((t) => [t.name, t.partitions]));
    const missing = topics.filter((topic) => (listed.get(topic)?.length ?? 0) === 0);
    const leaderless = topics.filter((topic) =>
      (listed.get(topic) ?? []).some((partition) => partition.leader < 0),
    );
    const said = [
      ...(missing.length > 0 ? [`does not list ${missing.join(', ')}`] : []),
      ...(leaderless.length > 0
        ? [`has no leader yet for a partition of ${leaderless.join(', ')}`]
        : []),
    ];
    if (said.length > 0) found.set(answer.who, said.join('; '));
  }
  return found;
}

/** How long creating topics waits for every broker to list them. */
export const AGREEMENT_MS = 30_000;

/**
 * Resolves once `ask` finds every broker listing every topic with a leader for each partition;
 * asks again with backoff (50 ms doubling, at most 1 s) and rejects with TopicsLeaderless,
 * naming each broker and what it lacks, after `timeoutMs`.
 */
export async function untilEveryBrokerLists(
  topics: readonly string[],
  ask: (topics: readonly string[]) => Promise<readonly BrokerAnswer[]>,
  timeoutMs = AGREEMENT_MS,
): Promise<void> {
  if (topics.length === 0) return;
  const deadline = performance.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const answers = await ask(topics);
    const found = lacking(topics, answers);
    if (answers.length > 0 && found.size === 0) return;
    if (performance.now() >= deadline) throw notAgreed(topics, found, timeoutMs);
    await delay(Math.min(1_000, 50 * 2 ** attempt));
  }
}

function notAgreed(
  topics: readonly string[],
  found: ReadonlyMap<string, string>,
  timeoutMs: number,
): TopicsLeaderless {
  const why =
    found.size === 0
      ? 'no broker answered'
      : [...found].map(([who, what]) => `${who} ${what}`).join('; ');
  return new TopicsLeaderless(
    `topics created, but after ${timeoutMs / 1000} s not every broker lists them with a leader for every partition (${why}): check that the cluster has as many live brokers as TOPIC_REPLICATION_FACTOR asks for and that its controller is healthy, then try again`,
    { details: { topics: [...topics] } },
  );
}

/**
 * Each broker of the cluster asked alone, through a client pinned to it. A broker that does not
 * know a topic yet refuses the whole request (kafkajs throws): that is an answer too, "not yet".
 */
export async function askEveryBroker(
  clientAt: ClientAt,
  brokers: readonly BrokerAddress[],
  topics: readonly string[],
): Promise<BrokerAnswer[]> {
  return Promise.all(brokers.map((broker) => askBroker(clientAt, broker, topics)));
}

async function askBroker(
  clientAt: ClientAt,
  broker: BrokerAddress,
  topics: readonly string[],
): Promise<BrokerAnswer> {
  const admin = clientAt(broker).admin({ retry: { retries: 0 } });
  try {
    await admin.connect();
    const { topics: listed } = await admin.fetchTopicMetadata({ topics: [...topics] });
    return { who: `broker ${broker.nodeId}`, topics: listed };
  } catch (error) {
    return { who: `broker ${broker.nodeId}`, error: (error as Error).message };
  } finally {
    await admin.disconnect().catch(() => {});
  }
}
