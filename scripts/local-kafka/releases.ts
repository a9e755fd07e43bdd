// Which Kafka releases the local broker can run, and the two families that differ in how the
// broker's jars are resolved (pom.xml profiles) and how it logs.

/** The broker line the project targets (Confluent Platform 7.9 ships the same Kafka 3.9). */
export const DEFAULT_KAFKA_VERSION = '3.9.2';
/** Newest 4.x release on Maven Central when this was written, for compatibility checks. */
export const KAFKA_4_VERSION = '4.1.2';

export type Family = 'kafka-3' | 'kafka-4';

export function releaseFamily(version: string): Family {
  const major = /^(\d+)\.\d+\.\d+$/.exec(version)?.[1];
  if (major === '3') return 'kafka-3';
  if (major === '4') return 'kafka-4';
  throw new Error(`unsupported Kafka version "${version}": expected 3.x.y or 4.x.y`);
}
