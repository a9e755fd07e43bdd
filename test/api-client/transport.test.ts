/**
 * Timeouts, resets, throttling and transient failures, injected by the simulator: the client
 * resends only what cannot have had an effect (not sent, throttled), and leaves everything that
 * may have reached the platform (a 503, 21990001, an unknown outcome) to the caller.
 */
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CallInfo, SigningClientOptions } from '../../src/api-client/index.js';
import { OutcomeUnknown, type PlatformRejected, RequestNotSent } from '../../src/errors.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  clientFor,
  draftWithDocument,
  initiator,
  person,
  rejection,
  signingContract,
} from './helpers.js';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ log: false });
});
afterAll(() => sim.stop());
beforeEach(() => sim.admin.reset());

/** A client whose every attempt is recorded. */
function recordingClient(options: Partial<SigningClientOptions> = {}) {
  const calls: CallInfo[] = [];
  const client = clientFor(sim, { onCall: (info) => calls.push(info), ...options });
  return { client, calls };
}

describe('what may have reached the platform is left to the caller', () => {
  it('when the platform answers 503, then the client does not resend it: one request, the 503 thrown', async () => {
    const { client, calls } = recordingClient();
    await sim.admin.setFaults({
      script: [{ operation: 'createDraft', kind: 'http503', times: 2 }],
    });
    const error = await rejection(
      client.createDraft({ bizId: 'x-1', subject: 'x', signatories: [person(1)] }),
    );
    expect(error).toMatchObject({
      code: 'SB_ERR_TRANSPORT_HTTP_STATUS',
      retryable: true,
      details: { httpStatus: 503, bizId: 'x-1' },
    });
    expect(calls.map((c) => c.httpStatus)).toEqual([503]);
    expect(await sim.admin.calls({ operation: 'createDraft' })).toHaveLength(1);
    await client.close();
  });

  it('when the platform answers 21990001, then the client does not resend it; the caller may', async () => {
    const { client, calls } = recordingClient();
    const { contractId } = await signingContract(client, 'x-2');
    await sim.admin.setFaults({
      script: [{ operation: 'addSignatory', kind: 'code21990001', times: 1 }],
    });
    const error = await rejection(client.addSignatory({ contractId, signatory: person(2) }));
    expect((error as PlatformRejected).details).toMatchObject({
      platformCode: '21990001',
      family: 'transient',
    });
    expect((error as PlatformRejected).retryable).toBe(true);
    expect(calls.filter((c) => c.operation === 'addSignatory')).toHaveLength(1);
    expect(await sim.admin.calls({ operation: 'addSignatory' })).toHaveLength(1);
    // The command layer's retry, once the fault has passed.
    await client.addSignatory({ contractId, signatory: person(2) });
    await client.close();
  });

  it('when the platform is refused for a business rule, then there is one attempt only', async () => {
    const { client, calls } = recordingClient();
    await client.createDraft({ bizId: 'x-4', subject: 'x', signatories: [person(1)] });
    await rejection(client.createDraft({ bizId: 'x-4', subject: 'x', signatories: [person(1)] }));
    expect(calls).toHaveLength(2);
    await client.close();
  });
});

describe('unknown outcomes are left to the caller', () => {
  it('when the answer does not come in time, then OutcomeUnknown is thrown after one attempt', async () => {
    const { client, calls } = recordingClient({ timeouts: { callMs: 300 } });
    await sim.admin.setFaults({ script: [{ operation: 'createDraft', kind: 'hang', times: 1 }] });
    const error = await rejection(
      client.createDraft({ bizId: 'u-1', subject: 'x', signatories: [person(1)] }),
    );
    expect(error).toBeInstanceOf(OutcomeUnknown);
    expect((error as OutcomeUnknown).details).toMatchObject({
      operation: 'createDraft',
      bizId: 'u-1',
      reason: 'CALL_DEADLINE_EXCEEDED',
      deadlineMs: 300,
    });
    expect(calls).toHaveLength(1);
    await client.close();
  });

  it('when the connection is reset after the request was sent, then OutcomeUnknown is thrown and not retried', async () => {
    const { client, calls } = recordingClient();
    const { contractId } = await draftWithDocument(client, 'u-2');
    await sim.admin.setFaults({
      script: [{ operation: 'initiateContract', kind: 'reset', times: 1 }],
    });
    const error = await rejection(client.initiateContract({ contractId }));
    expect(error).toBeInstanceOf(OutcomeUnknown);
    expect((error as OutcomeUnknown).details).toMatchObject({
      operation: 'initiateContract',
      contractId,
    });
    expect(calls.filter((c) => c.operation === 'initiateContract')).toHaveLength(1);
    // Reconciliation is the caller's: here the simulator had not acted, so a new attempt works.
    expect((await sim.admin.contract({ contractId })).status).toBe('DRAFT');
    await client.initiateContract({ contractId });
    await client.close();
  });
});

describe('requests that were never sent', () => {
  it('when nothing listens, then every attempt is RequestNotSent and the last one is thrown', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    server.close();
    await once(server, 'close');
    const calls: CallInfo[] = [];
    const client = clientFor(sim, {
      baseUrl: `http://127.0.0.1:${port}`,
      onCall: (info) => calls.push(info),
    });
    const error = await rejection(client.remindSignatories({ bizId: 'n-1' }));
    expect(error).toBeInstanceOf(RequestNotSent);
    expect((error as RequestNotSent).details).toMatchObject({
      bizId: 'n-1',
      reason: 'ECONNREFUSED',
    });
    expect(calls.map((c) => c.error?.code)).toEqual(Array(3).fill('SB_ERR_TRANSPORT_NOT_SENT'));
    await client.close();
  });
});

describe('throttling', () => {
  it('when the platform throttles with 429, then the client backs off and every call gets through', async () => {
    await sim.admin.setFaults({ requestsPerSecond: 5 });
    const { client, calls } = recordingClient({
      retry: { maxAttempts: 8, initialDelayMs: 200, maxDelayMs: 1_000 },
    });
    const bizIds = Array.from({ length: 8 }, (_, i) => `t-${i}`);
    await Promise.all(
      bizIds.map((bizId) => client.createDraft({ bizId, subject: 'x', signatories: [person(1)] })),
    );
    const throttled = calls.filter((c) => c.httpStatus === 429);
    expect(throttled.length).toBeGreaterThan(0);
    expect(throttled[0]?.error).toMatchObject({
      details: { platformCode: '429', family: 'throttled' },
    });
    await client.close();
  });

  it('when the client paces at the platform rate, then it is never throttled', async () => {
    await sim.admin.setFaults({ requestsPerSecond: 20 });
    const { client, calls } = recordingClient({ requestsPerSecond: 20 });
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        client.createDraft({
          bizId: `p-${i}`,
          subject: 'x',
          signatories: [initiator(), person(1)],
        }),
      ),
    );
    expect(calls.filter((c) => c.error)).toEqual([]);
    await client.close();
  });
});

describe('a recorder told before each request leaves', () => {
  /** A recorder that notes what it is told and, when asked, how many calls the platform had. */
  function recorder(options: { refuse?: Error } = {}) {
    const told: string[] = [];
    return {
      told,
      recorder: {
        async beforeSend() {
          const received = await sim.admin.calls({ operation: 'remindSignatories' });
          told.push(`before send (platform had ${received.length})`);
          if (options.refuse) throw options.refuse;
        },
        notApplied() {
          told.push('not applied');
        },
      },
    };
  }

  it('when the call is answered, then the recorder was asked once, before the platform received anything', async () => {
    const client = clientFor(sim);
    const { contractId } = await signingContract(client, 'r-1');
    const { told, recorder: r } = recorder();
    await client.remindSignatories({ contractId }, { recorder: r });
    expect(told).toEqual(['before send (platform had 0)']);
    expect(await sim.admin.calls({ operation: 'remindSignatories' })).toHaveLength(1);
    await client.close();
  });

  it("when the recorder refuses, then nothing reaches the platform and the call fails with the recorder's own error", async () => {
    const client = clientFor(sim);
    const { contractId } = await signingContract(client, 'r-2');
    const refusal = new Error('partition lost');
    const { told, recorder: r } = recorder({ refuse: refusal });
    const error = await rejection(client.remindSignatories({ contractId }, { recorder: r }));
    expect(error).toBe(refusal);
    expect(told).toEqual(['before send (platform had 0)', 'not applied']);
    expect(await sim.admin.calls({ operation: 'remindSignatories' })).toEqual([]);
    await client.close();
  });

  it('when attempts are throttled before one is answered, then the recorder hears "not applied" after each throttled one, before it is asked again', async () => {
    const client = clientFor(sim, {
      retry: { maxAttempts: 10, initialDelayMs: 200, maxDelayMs: 1_000 },
    });
    const { contractId } = await signingContract(client, 'r-3');
    // One request a second, two at once at most: the reminders just made take those.
    await sim.admin.setFaults({ requestsPerSecond: 1 });
    await client.remindSignatories({ contractId });
    await client.remindSignatories({ contractId });
    const { told, recorder: r } = recorder();
    await client.remindSignatories({ contractId }, { recorder: r });
    const calls = await sim.admin.calls({ operation: 'remindSignatories' });
    const throttled = calls.filter((c) => c.fault === 'rateLimit').length;
    expect(throttled).toBeGreaterThan(0);
    const asks = told.map((line) => line.replace(/ \(platform had \d+\)/, ''));
    expect(asks).toEqual([
      ...Array.from({ length: throttled }, () => ['before send', 'not applied']).flat(),
      'before send',
    ]);
    await client.close();
  });

  it('when the answer does not come in time, then the recorder is not told "not applied": the call is in doubt', async () => {
    const client = clientFor(sim, { timeouts: { callMs: 300 } });
    const { contractId } = await signingContract(client, 'r-4');
    await sim.admin.setFaults({
      script: [{ operation: 'remindSignatories', kind: 'hang', times: 1 }],
    });
    const { told, recorder: r } = recorder();
    const error = await rejection(client.remindSignatories({ contractId }, { recorder: r }));
    expect(error).toBeInstanceOf(OutcomeUnknown);
    expect(told).toEqual(['before send (platform had 0)']);
    await client.close();
  });
});
