// Faults that let the operation run and then spoil its answer (late, resetAfterApply, garbage,
// drip, huge), and the maintenance page that stands in for it, over real sockets with a raw
// node:http client: what the client sees, and whether the platform acted (admin API state and
// the call log's `applied`), so a test can show one side effect whose answer was lost.
import { beforeEach, describe, expect, it } from 'vitest';
import type { OperationName } from '../../src/schemas/platform/operations.js';
import {
  type CallRecord,
  type ContractRecord,
  type ScriptedFault,
  startSimulator,
} from '../../src/simulator/index.js';
import { waitUntil } from '../support/wait.js';
import { draft } from './support/contracts.js';
import { ok, signingContract } from './support/flows.js';
import { RawExchange } from './support/raw-exchange.js';
import { RawPlatform } from './support/raw-platform.js';
import { useSimulator } from './support/simulator.js';

const LATE_PERSON = {
  tenantType: 'PERSONAL',
  tenantName: 'Late Larry',
  receiver: { contact: '13900000077', contactType: 'MOBILE' },
};
const JSON_TYPE = 'application/json;charset=UTF-8';
const WAIT = { timeoutMs: 20_000 };

describe('faults around a platform operation', () => {
  const s = useSimulator();
  beforeEach(() => s.sim.admin.reset());

  const script = (...faults: ScriptedFault[]) => s.sim.admin.setFaults({ script: faults });
  const exchange = (operation: OperationName, body: unknown, options = {}) =>
    new RawExchange(s.platform, operation, body, options);
  const contract = (contractId: string): Promise<ContractRecord> =>
    s.sim.admin.contract({ contractId });
  /** The one call of `operation` since the reset, once the simulator has logged it. */
  const loggedCall = async (operation: OperationName): Promise<CallRecord> => {
    const [call] = await waitUntil(() => s.sim.admin.calls({ operation }), {
      ...WAIT,
      until: (calls) => calls.length > 0,
      what: `the ${operation} call in the call log`,
    });
    return call as CallRecord;
  };
  /** The simulator still answers: a later call is served normally. */
  const stillAnswers = async () => {
    expect((await s.platform.call('createDraft', draft())).body).toMatchObject({ code: 0 });
  };

  describe('late', () => {
    it('when the client waits, then add-signatory runs and its real answer comes after ms', async () => {
      const signing = await signingContract(s.platform);
      await script({ operation: 'addSignatory', kind: 'late', times: 1, ms: 200 });

      const call = exchange('addSignatory', { contractId: signing.id, signatory: LATE_PERSON });

      expect(await call.ended).toBe('end');
      expect((await call.head).statusCode).toBe(200);
      expect(JSON.parse(call.text)).toMatchObject({
        responseCode: '00000000',
        result: { tenantName: 'Late Larry' },
      });
      expect(await loggedCall('addSignatory')).toMatchObject({
        httpStatus: 200,
        code: '00000000',
        ok: true,
        applied: true,
        fault: 'late',
      });
    });

    it('when the client gives up before the answer, then the signatory was added all the same and nothing is sent', async () => {
      const signing = await signingContract(s.platform);
      await script({ operation: 'addSignatory', kind: 'late', times: 1, ms: 600_000 });

      const call = exchange('addSignatory', { contractId: signing.id, signatory: LATE_PERSON });
      await waitUntil(
        async () => (await contract(signing.id)).signatories.map((x) => x.tenantName),
        { ...WAIT, until: (names) => names.includes('Late Larry'), what: 'Late Larry added' },
      );
      call.giveUp();

      expect(await call.ended).toBe('ECONNRESET');
      expect(await loggedCall('addSignatory')).toMatchObject({
        contractId: signing.id,
        httpStatus: 0,
        code: '00000000',
        ok: false,
        applied: true,
        fault: 'late',
      });
      expect((await contract(signing.id)).signatories).toHaveLength(3);
      await stillAnswers();
    });
  });

  it('resetAfterApply: the draft is created, the client gets a 200 head, part of the body, then a reset', async () => {
    await script({ operation: 'createDraft', kind: 'resetAfterApply', times: 1 });
    const body = draft();

    const call = exchange('createDraft', body);
    const head = await call.head;

    expect(await call.ended).toBe('ECONNRESET');
    expect(head.statusCode).toBe(200);
    expect(call.bytes).toBeLessThan(Number(head.headers['content-length']));
    expect((await s.sim.admin.contract({ bizId: body.bizId })).status).toBe('DRAFT');
    expect(await loggedCall('createDraft')).toMatchObject({
      bizId: body.bizId,
      httpStatus: 200,
      code: '0',
      ok: false,
      applied: true,
      fault: 'resetAfterApply',
    });
  });

  it('garbage: the reminder is counted, the client gets a 200 claiming JSON that does not parse', async () => {
    const signing = await signingContract(s.platform);
    await script({ operation: 'remindSignatories', kind: 'garbage', times: 1 });

    const call = exchange('remindSignatories', { contractId: signing.id });
    const head = await call.head;

    expect(await call.ended).toBe('end');
    expect([head.statusCode, head.headers['content-type']]).toEqual([200, JSON_TYPE]);
    expect(() => JSON.parse(call.text)).toThrow(SyntaxError);
    expect((await contract(signing.id)).reminders).toHaveLength(1);
    expect(await loggedCall('remindSignatories')).toMatchObject({
      code: '00000000',
      ok: false,
      applied: true,
      fault: 'garbage',
    });
  });

  describe('maintenance', () => {
    it('with status 503, add-signatory does not run and the client gets an HTML page', async () => {
      const signing = await signingContract(s.platform);
      await script({ operation: 'addSignatory', kind: 'maintenance', times: 1, status: 503 });

      const call = exchange('addSignatory', { contractId: signing.id, signatory: LATE_PERSON });
      const head = await call.head;

      expect(await call.ended).toBe('end');
      expect(head.statusCode).toBe(503);
      expect(head.headers['content-type']).toMatch(/^text\/html/);
      expect(call.text).toContain('<html>');
      expect((await contract(signing.id)).signatories).toHaveLength(2);
      const logged = await loggedCall('addSignatory');
      expect(logged).toMatchObject({ httpStatus: 503, ok: false, applied: false });
      expect(logged.fault).toBe('maintenance');
      expect(logged.code).toBeUndefined();
    });

    it('by default, the page comes with HTTP 200 and no draft is created', async () => {
      await script({ operation: 'createDraft', kind: 'maintenance', times: 1 });
      const body = draft();

      const answer = await s.platform.call('createDraft', body);

      expect(answer.status).toBe(200);
      expect(answer.text).toContain('maintenance');
      await expect(s.sim.admin.contract({ bizId: body.bizId })).rejects.toMatchObject({
        details: { httpStatus: 404 },
      });
      expect(await loggedCall('createDraft')).toMatchObject({
        applied: false,
        fault: 'maintenance',
      });
    });
  });

  describe('drip', () => {
    it('when the client waits, then the reminder is counted and the whole answer comes byte by byte', async () => {
      const signing = await signingContract(s.platform);
      await script({ operation: 'remindSignatories', kind: 'drip', times: 1, ms: 5 });

      const call = exchange('remindSignatories', { contractId: signing.id });
      const head = await call.head;

      expect(await call.ended).toBe('end');
      expect(Number(head.headers['content-length'])).toBe(call.bytes);
      expect(JSON.parse(call.text)).toEqual({ responseCode: '00000000', message: 'SUCCESS' });
      expect(call.chunks.length).toBeGreaterThan(1);
      expect((await contract(signing.id)).reminders).toHaveLength(1);
      expect(await loggedCall('remindSignatories')).toMatchObject({
        ok: true,
        applied: true,
        fault: 'drip',
      });
    });

    it('when the client gives up, then its connection is closed and the simulator answers later calls', async () => {
      await script({ operation: 'createDraft', kind: 'drip', times: 1, ms: 200 });
      const body = draft();

      const call = exchange('createDraft', body, { giveUpAfter: 1 });

      expect(await call.ended).toBe('ECONNRESET');
      expect(await loggedCall('createDraft')).toMatchObject({
        bizId: body.bizId,
        httpStatus: 200,
        code: '0',
        ok: false,
        applied: true,
        fault: 'drip',
      });
      expect((await s.sim.admin.contract({ bizId: body.bizId })).status).toBe('DRAFT');
      await stillAnswers();
    });
  });

  describe('huge', () => {
    it('when the client reads a bounded prefix and closes, then the draft exists and later calls are answered', async () => {
      await script({ operation: 'createDraft', kind: 'huge', times: 1 });
      const body = draft();

      const call = exchange('createDraft', body, { giveUpAfter: 1_048_576 });
      const head = await call.head;

      expect(await call.ended).toBe('ECONNRESET');
      expect(head.headers['content-length']).toBe('104857600');
      expect(head.headers['content-type']).toBe(JSON_TYPE);
      expect(call.text).toMatch(/^\{"code":0,"message":"SUCCESS","result":\{.*,"padding":"x+$/s);
      expect(await loggedCall('createDraft')).toMatchObject({
        bizId: body.bizId,
        ok: false,
        applied: true,
        fault: 'huge',
      });
      expect((await s.sim.admin.contract({ bizId: body.bizId })).status).toBe('DRAFT');
      await stillAnswers();
    });

    it('when the client reads it all, then it is valid JSON of exactly the bytes asked for', async () => {
      const signing = await signingContract(s.platform);
      await script({ operation: 'remindSignatories', kind: 'huge', times: 1, bytes: 3_000_000 });

      const call = exchange('remindSignatories', { contractId: signing.id });

      expect(await call.ended).toBe('end');
      expect(call.bytes).toBe(3_000_000);
      expect(JSON.parse(call.text)).toMatchObject({ responseCode: '00000000', message: 'SUCCESS' });
      expect(await loggedCall('remindSignatories')).toMatchObject({ ok: true, fault: 'huge' });
    });
  });
});

describe('stopping with spoiled answers in flight', () => {
  it('when a drip and an unread huge answer are under way, then stop() cuts them after its grace', async () => {
    const sim = await startSimulator({ log: false, stopGraceMs: 100 });
    const platform = new RawPlatform(sim.url);
    await ok(platform, 'createDraft', draft());
    await sim.admin.setFaults({
      script: [
        { kind: 'drip', times: 1, ms: 60_000 },
        { kind: 'huge', times: 1, bytes: 1_073_741_824 },
      ],
    });
    const drip = new RawExchange(platform, 'createDraft', draft());
    await drip.head;
    const huge = new RawExchange(platform, 'createDraft', draft(), { unread: true });
    await huge.head;

    await sim.stop();
    huge.read();

    expect(await drip.ended).toBe('ECONNRESET');
    expect(await huge.ended).not.toBe('end');
    expect(huge.bytes).toBeLessThan(1_073_741_824);
  });
});
