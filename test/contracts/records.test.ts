/**
 * The published contracts judged by outside tools against what the bridge really writes: the
 * AsyncAPI document by the AsyncAPI Initiative's parser; every event and dead letter read from
 * the broker by Python's jsonschema (the event's data against the JSON Schema its
 * ce_dataschema names, its headers and key against its AsyncAPI message) and by the
 * CloudEvents SDK's Kafka binding. Each tool is installed by the project's scripts under .tools/.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EVENTS } from '../../src/schemas/messages/index.js';
import { type ServicePipeline, startServicePipeline } from '../support/service-pipeline.js';
import { asyncapiParser, pythonVenv, REPO_ROOT } from '../support/tools.js';
import { everyKindOfRecord } from './commands.js';

const VALIDATOR = `${REPO_ROOT}scripts/contracts/validate-asyncapi.cjs`;
const scratch = mkdtempSync(join(tmpdir(), 'contracts-'));

describe('the AsyncAPI document, for @asyncapi/parser', () => {
  let parser: string;
  beforeAll(() => {
    parser = asyncapiParser();
  }, 300_000);

  const validate = (file: string) =>
    spawnSync('node', [VALIDATOR, parser, file], { encoding: 'utf8', timeout: 60_000 });

  it('when schemas/asyncapi.json is parsed, then it has no error and no warning', () => {
    const result = validate(`${REPO_ROOT}schemas/asyncapi.json`);
    expect(result.stdout).not.toMatch(/"severity":"(error|warning)"/);
    expect(result.status).toBe(0);
  });

  it('when a channel names a message that does not exist, then the parser refuses it (the check can fail)', () => {
    const document = JSON.parse(readFileSync(`${REPO_ROOT}schemas/asyncapi.json`, 'utf8'));
    document.channels.events.messages.gone = { $ref: '#/components/messages/gone' };
    const broken = join(scratch, 'broken-asyncapi.json');
    writeFileSync(broken, JSON.stringify(document));
    const result = validate(broken);
    expect(result.stdout).toMatch(/"severity":"error"/);
    expect(result.status).toBe(1);
  });
});

describe('records read from the broker, for Python jsonschema and the CloudEvents SDK', () => {
  let pipeline: ServicePipeline;
  let python: string;
  beforeAll(async () => {
    python = pythonVenv('contracts');
    pipeline = await startServicePipeline({ brokers: inject('kafkaBrokers') });
    await everyKindOfRecord(pipeline);
  }, 300_000);
  afterAll(() => pipeline?.stop());

  /** Runs the validator over `records`; its report. */
  function validate(records: unknown[]) {
    const file = join(scratch, `records-${Date.now()}.json`);
    writeFileSync(file, JSON.stringify(records));
    const result = spawnSync(
      python,
      [`${REPO_ROOT}scripts/contracts/validate_records.py`, REPO_ROOT, file],
      { encoding: 'utf8', timeout: 120_000 },
    );
    if (!result.stdout) throw new Error(`validator failed: ${result.stderr}`);
    const report = JSON.parse(result.stdout) as {
      checked: Record<string, number>;
      problems: string[];
    };
    return { ...report, status: result.status };
  }

  const asTopics = () =>
    pipeline.reader.records.map((record) => ({
      ...record,
      topic: record.topic === pipeline.topics.events ? 'events' : 'deadLetter',
    }));

  it('when every event type and both kinds of dead letter were written, then each record is valid for its schema, its AsyncAPI headers and key, and the CloudEvents binding', () => {
    const report = validate(asTopics());
    expect(report.problems).toEqual([]);
    expect(Object.keys(report.checked).sort()).toEqual(
      [...Object.keys(EVENTS), 'dead-letter'].sort(),
    );
    expect(report.checked['dead-letter']).toBe(2);
    expect(report.status).toBe(0);
  });

  it('when a record breaks its contract (no ce_subject, a retyped field, a missing dlq header), then the validator says so (the check can fail)', () => {
    const records = asTopics();
    const event = records.find((r) => r.headers.ce_type === 'signingbridge.contract.created');
    const letter = records.find((r) => r.topic === 'deadLetter');
    if (!event?.value || !letter) throw new Error('records missing');
    const { ce_subject: _, ...headers } = event.headers;
    const data = { ...JSON.parse(event.value), initiated: 'yes' };
    const { 'dlq-source-offset': __, ...letterHeaders } = letter.headers;
    const report = validate([
      { ...event, headers, value: JSON.stringify(data) },
      { ...letter, headers: letterHeaders },
    ]);
    expect(report.problems).toEqual([
      expect.stringMatching(/data: initiated: 'yes' is not of type 'boolean'/),
      expect.stringMatching(/headers: \(root\): 'ce_subject' is a required property/),
      expect.stringMatching(/headers: \(root\): 'dlq-source-offset' is a required property/),
    ]);
    expect(report.status).toBe(1);
  });
});
