/**
 * Personal data stays out of what the bridge publishes. Commands full of it (mobile numbers,
 * e-mail addresses, identity and bank card numbers, individuals' names) go through the service
 * as deployed: one that succeeds, ones the schema rejects, ones the platform refuses quoting
 * them. None may appear in any event value or header, any log line (at debug level), or
 * /metrics. The dead-letter copy keeps the command untouched, by design.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../src/observability/index.js';
import { fileDocument, initiator, meta } from '../handlers/support/fixtures.js';
import { type ServicePipeline, startServicePipeline } from '../support/service-pipeline.js';
import { uniqueId } from '../support/unique.js';
import { refusedContract, run } from './commands.js';

const SECRETS = {
  mobile: '13700001111',
  bankMobile: '13655556666',
  refusedMobile: '13912345678',
  email: 'zhao.lei@example.com',
  refusedEmail: 'qian.li@mail.example.org',
  idCard: '11010519491231002X',
  bankCard: '6222021234567890123',
  name: 'Sun Xiaomei',
  otherName: 'Zhao Lei',
};
const PERSONAL_VALUES = Object.values(SECRETS);

const authInfo = {
  idCardNo: SECRETS.idCard,
  bankNo: SECRETS.bankCard,
  bankMobile: SECRETS.bankMobile,
};
const byMobile = {
  tenantType: 'PERSONAL',
  tenantName: SECRETS.name,
  receiver: { name: SECRETS.name, contact: SECRETS.mobile, contactType: 'MOBILE' },
  userAuthInfo: authInfo,
};
const byEmail = {
  tenantType: 'PERSONAL',
  tenantName: SECRETS.otherName,
  receiver: { name: SECRETS.otherName, contact: SECRETS.email, contactType: 'EMAIL' },
};

let pipeline: ServicePipeline;
const logLines: string[] = [];
const ends: string[] = [];

beforeAll(async () => {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const log = createLogger({ level: 'debug', headerPrefix: 'x-svc-open-' }, stream);
  pipeline = await startServicePipeline({ brokers: inject('kafkaBrokers'), log });

  const bizId = uniqueId('personal');
  const contract = { subject: bizId, signatories: [initiator(), byMobile, byEmail] };
  const documents = [await fileDocument('Agreement')];
  ends.push(
    await run(pipeline, 'create-contract', {
      ...meta(bizId),
      payload: { contract, documents, initiate: {} },
    }),
    await run(pipeline, 'add-signatory', {
      ...meta(bizId),
      payload: { signatory: { ...byMobile, tenantName: SECRETS.otherName } },
    }),
    // The schema refuses an unknown contact type, and a key it does not know, named by a number.
    await run(pipeline, 'create-contract', {
      ...meta(uniqueId('invalid')),
      payload: {
        contract: {
          signatories: [
            { ...byMobile, receiver: { contact: SECRETS.mobile, contactType: 'PHONE' } },
            { ...byEmail, [SECRETS.refusedMobile]: SECRETS.bankCard },
          ],
        },
      },
    }),
    await run(pipeline, 'create-contract', refusedContract(SECRETS.refusedMobile, 'MOBILE')),
    await run(pipeline, 'create-contract', refusedContract(SECRETS.refusedEmail, 'EMAIL')),
  );
  await pipeline.sender.sendRaw(
    pipeline.topics.commands.approve,
    'personal-raw',
    `call ${SECRETS.refusedMobile} or write to ${SECRETS.email}`,
  );
  await pipeline.reader.waitUntil(
    (records) => records.some((r) => r.key === 'personal-raw' && r.headers.ce_type),
    30_000,
    'the rejection of the unreadable record',
  );
}, 300_000);
afterAll(() => pipeline?.stop());

const eventRecords = () =>
  pipeline.reader.records.filter((r) => r.topic === pipeline.topics.events);
const leaks = (text: string) => PERSONAL_VALUES.filter((value) => text.includes(value));

describe('personal data through the pipeline', () => {
  it('when the commands ran, then they ended as intended: created, added, rejected by the schema, refused by the platform', () => {
    expect(ends).toEqual([
      'signingbridge.contract.created',
      'signingbridge.signatory.added',
      'signingbridge.command.rejected',
      'signingbridge.command.failed',
      'signingbridge.command.failed',
    ]);
  });

  it('when the platform refused quoting a contact, then the failure event carries the message with the contact masked', () => {
    const messages = eventRecords()
      .filter((r) => r.headers.ce_type === 'signingbridge.command.failed')
      .map((r) => (JSON.parse(r.value ?? '{}') as { error: { message: string } }).error.message);
    expect(messages).toEqual([
      expect.stringContaining('MOBILE "[number]"'),
      expect.stringContaining('EMAIL "[email]"'),
    ]);
  });

  it('when every event was published, then no value or header of any holds a personal value', () => {
    expect(eventRecords().length).toBeGreaterThanOrEqual(8);
    for (const record of eventRecords()) {
      const text = [record.key, record.value, ...Object.values(record.headers)].join('\n');
      expect(leaks(text), `${record.headers.ce_type} ${record.headers.ce_id}`).toEqual([]);
    }
  });

  it('when the service logged at debug level, then no line holds a personal value', () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(leaks(logLines.join(''))).toEqual([]);
  });

  it('when /metrics is read, then it holds no personal value', async () => {
    const metrics = await pipeline.metrics();
    expect(metrics).toContain('signing_bridge_commands_total');
    expect(leaks(metrics)).toEqual([]);
  });

  it('when a record was dead-lettered, then its copy keeps the personal data untouched (the topic to restrict)', () => {
    const letters = pipeline.reader.records.filter((r) => r.topic === pipeline.topics.deadLetter);
    expect(letters).toHaveLength(2);
    expect(leaks(letters.map((r) => r.value).join('\n'))).toEqual(
      expect.arrayContaining([SECRETS.mobile, SECRETS.refusedMobile, SECRETS.email]),
    );
  });
});
