/**
 * The handful of variables most deployments set, with why: docs/configuration.md opens with them.
 * Every other variable has a default that suits most deployments.
 */
import type { VariableName } from './table.js';

export interface Essential {
  readonly name: VariableName;
  /** Why a deployment sets it, in a few words. */
  readonly why: string;
}

export const ESSENTIALS = [
  { name: 'KAFKA_BROKERS', why: 'Where the cluster is.' },
  { name: 'SIGNING_API_BASE_URL', why: "The platform's address." },
  { name: 'SIGNING_APP_TOKEN', why: 'The credentials the platform issued; keep them in a Secret.' },
  { name: 'SIGNING_APP_SECRET', why: 'As above; it only ever signs requests.' },
  {
    name: 'SIGNING_RPS',
    why: "The platform's request limit for the whole consumer group, not divided by the replicas.",
  },
  {
    name: 'KAFKA_GROUP_ID',
    why: 'One per bridge: two bridges in one group would share its partitions.',
  },
  {
    name: 'TOPIC_PREFIX',
    why: 'One per bridge on a shared cluster, or to follow your naming convention.',
  },
  {
    name: 'TOPIC_REPLICATION_FACTOR',
    why: 'On a production cluster: 3, say, with TOPIC_MIN_INSYNC_REPLICAS 2.',
  },
  {
    name: 'FILE_URL_ALLOWED_HOSTS',
    why: 'When commands give document files by URL: without it none is downloaded.',
  },
] as const satisfies readonly Essential[];

/** Pointers after the table, to the variables of choices some deployments make. */
export const ESSENTIAL_POINTERS = [
  'A secured cluster: `KAFKA_TLS` and `KAFKA_SASL_MECHANISM` with the files and credentials they need ([deployment.md](deployment.md#a-secured-kafka-cluster)).',
  'Traces: `OTEL_EXPORTER_OTLP_ENDPOINT`, your collector ([observability.md](observability.md#traces)).',
  'Priorities between command types: `COMMAND_CLASSES` and `CLASS_WEIGHTS` ([deployment.md](deployment.md#priority-classes)).',
  'Commands in hand and their memory: `MAX_IN_FLIGHT`, `MAX_PENDING_BYTES` and `FILE_MAX_BYTES` ([deployment.md](deployment.md#scaling)).',
] as const;
