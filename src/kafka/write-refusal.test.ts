import {
  KafkaJSConnectionError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
} from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { KafkaWriteFailed } from '../errors.js';
import { writeFailed } from './write-failure.js';
import { refusalAdvice, refusalOfCode, writeRefusal } from './write-refusal.js';

/** What a broker answers, as kafkajs makes it of the code (its retriable flag included). */
function answer(type: string, retriable: boolean): KafkaJSProtocolError {
  return new KafkaJSProtocolError(
    Object.assign(new Error(`broker says ${type}`), { type, code: 1, retriable }),
  );
}

describe('refusalOfCode', () => {
  it.each(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'RecordTooLarge', 'INVALID_RECORD'])(
    'when Kafka answers %s, then only that record is refused',
    (code) => {
      expect(refusalOfCode(code)).toBe('record');
    },
  );

  it.each([
    'TOPIC_AUTHORIZATION_FAILED',
    'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
    'CLUSTER_AUTHORIZATION_FAILED',
    'INVALID_TIMESTAMP',
    'POLICY_VIOLATION',
    'UNSUPPORTED_FOR_MESSAGE_FORMAT',
    'OUT_OF_ORDER_SEQUENCE_NUMBER',
    'A_CODE_NOT_KNOWN_YET',
  ])('when Kafka answers %s, then every write is refused until someone acts', (code) => {
    expect(refusalOfCode(code)).toBe('until-fixed');
  });

  it('when a refusal holds, then the advice names what to check for its code, and something for any other', () => {
    expect(refusalAdvice('TOPIC_AUTHORIZATION_FAILED')).toMatch(/Write and Describe/);
    expect(refusalAdvice('INVALID_TIMESTAMP')).toMatch(
      /clock.*message\.timestamp\.before\.max\.ms/,
    );
    expect(refusalAdvice('TRANSACTIONAL_ID_AUTHORIZATION_FAILED')).toMatch(/KAFKA_GROUP_ID/);
    expect(refusalAdvice('A_CODE_NOT_KNOWN_YET')).toMatch(/ACLs and configuration/);
  });
});

describe('writeFailed and writeRefusal: what kafkajs reports', () => {
  it('when the broker refuses the records for good, then the write fails for good naming its code', () => {
    const failed = writeFailed(answer('TOPIC_AUTHORIZATION_FAILED', false));
    expect(failed.details).toEqual({ kafkaError: 'TOPIC_AUTHORIZATION_FAILED', permanent: true });
    expect(writeRefusal(failed)).toBe('until-fixed');
    expect(writeRefusal(writeFailed(answer('MESSAGE_TOO_LARGE', false)))).toBe('record');
  });

  it('when kafkajs wraps the refusal (a topic whose metadata is refused), then it is still for good, with the code', () => {
    const refused = answer('TOPIC_AUTHORIZATION_FAILED', false);
    // As kafkajs' retrier wraps what it does not retry, its cause the broker's answer.
    const wrapped = Object.assign(new KafkaJSNonRetriableError(refused), { cause: refused });
    const failed = writeFailed(wrapped);
    expect(failed.details).toEqual({ kafkaError: 'TOPIC_AUTHORIZATION_FAILED', permanent: true });
  });

  it('when kafkajs ran out of retries of something that may pass, then the write may be retried, naming the code', () => {
    const last = answer('NOT_ENOUGH_REPLICAS', true);
    const failed = writeFailed(
      new KafkaJSNumberOfRetriesExceeded(last, { retryCount: 5, retryTime: 1_000 }),
    );
    expect(failed.details).toEqual({ kafkaError: 'NOT_ENOUGH_REPLICAS', permanent: false });
    expect(writeRefusal(failed)).toBeUndefined();
  });

  it('when no broker answered, then the write may be retried, named by the error', () => {
    const failed = writeFailed(new KafkaJSConnectionError('Connection error: ECONNREFUSED'));
    expect(failed.details).toEqual({ kafkaError: 'KafkaJSConnectionError', permanent: false });
  });

  it('when the outbox refuses a record over the limit itself, then only that record is refused', () => {
    const tooLarge = new KafkaWriteFailed('too large', {
      details: { kafkaError: 'RecordTooLarge', permanent: true },
    });
    expect(writeRefusal(tooLarge)).toBe('record');
    expect(writeRefusal(new Error('not a write'))).toBeUndefined();
  });
});
