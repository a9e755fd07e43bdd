/**
 * Through Kafka, when the platform is down or a command comes early: a storm of 503s that the
 * circuit breaker rides out until every command succeeds, and add-document racing the
 * create-contract of its bizId.
 */
import { describe, expect, it } from 'vitest';
import {
  fileDocument,
  initiator,
  meta,
  person,
  templateDocument,
} from '../handlers/support/fixtures.js';
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';
import { useEndToEnd } from './support/e2e.js';

const e2e = useEndToEnd({
  retry: {
    maxAttempts: 200,
    maxElapsedMs: 60_000,
    policy: { initialDelayMs: 50, maxDelayMs: 400, multiplier: 2 },
  },
  breaker: {
    failureThreshold: 3,
    openDurationMs: 300,
    maxOpenDurationMs: 1_000,
    halfOpenProbes: 1,
  },
});

async function createContract(bizId: string, options: { initiate?: boolean } = {}) {
  return e2e.send('create-contract', {
    ...meta(bizId),
    payload: {
      contract: { subject: bizId, signatories: [initiator(), person(1)] },
      documents: [await fileDocument('Agreement')],
      ...(options.initiate === false ? {} : { initiate: {} }),
    },
  });
}

describe('an upstream 503 storm', () => {
  it('when every call answers 503 for a while, then the breaker opens and pauses consumption, and once the storm passes every command succeeds', async () => {
    await e2e.sim.admin.setFaults({ operations: { '*': { errorRate: 1, error: 'http503' } } });
    const bizIds = Array.from({ length: 5 }, () => uniqueId('storm'));
    const commandIds = await Promise.all(bizIds.map((bizId) => createContract(bizId)));
    await waitUntil(
      () =>
        e2e.observed.some(([name, state]) => name === 'breakerStateChanged' && state === 'open'),
      { what: 'the breaker to open', timeoutMs: 20_000 },
    );
    expect(e2e.observed).toContainEqual(['consumptionPaused', true, 'breaker']);
    // The storm lasts until the breaker's probe has met it too.
    await waitUntil(
      async () =>
        (await e2e.sim.admin.calls({ operation: 'createDraft' })).filter(
          (c) => c.httpStatus === 503,
        ).length,
      {
        until: (met) => met >= 3,
        what: 'three createDraft calls to meet the storm',
        timeoutMs: 20_000,
      },
    );
    await e2e.sim.admin.setFaults({});

    for (const commandId of commandIds) {
      expect((await e2e.ended(commandId, 30_000)).event.type).toBe(
        'signingbridge.contract.created',
      );
    }
    for (const bizId of bizIds) {
      expect((await e2e.sim.admin.contract({ bizId })).status).toBe('SIGNING');
    }
    expect(e2e.observed).toContainEqual(['breakerStateChanged', 'closed']);
    const storm = await e2e.sim.admin.calls({ operation: 'createDraft' });
    expect(storm.filter((call) => call.httpStatus === 503).length).toBeGreaterThanOrEqual(3);
  });
});

describe('add-document racing its create-contract', () => {
  it('when add-document arrives first, then it waits (not-found retries) and succeeds once the contract exists', async () => {
    const bizId = uniqueId('race');
    const addId = await e2e.send('add-document', { ...meta(bizId), payload: templateDocument() });
    await waitUntil(
      () =>
        e2e.observed.some(
          ([name, info]) =>
            name === 'retryScheduled' &&
            info.type === 'add-document' &&
            info.reason === 'not-found',
        ),
      { what: 'a not-found retry of add-document', timeoutMs: 10_000 },
    );
    // A draft, so the racing document can still be added to it.
    const createId = await createContract(bizId, { initiate: false });
    expect((await e2e.ended(createId)).event.type).toBe('signingbridge.contract.created');
    const added = await e2e.ended(addId);
    expect(added.event.type).toBe('signingbridge.document.added');
    const titles = (await e2e.sim.admin.contract({ bizId })).documents.map((d) => d.title);
    expect(titles).toEqual(['Agreement', 'NDA']);
  });

  it('when the contract never comes, then add-document ends with precondition-timed-out after the wait', async () => {
    const sent = Date.now();
    const addId = await e2e.send('add-document', {
      ...meta(uniqueId('orphan')),
      payload: templateDocument(),
    });
    const ended = await e2e.ended(addId);
    expect(ended.event.type).toBe('signingbridge.command.precondition-timed-out');
    expect(ended.data).toMatchObject({
      step: 'add-document',
      waitedMs: expect.any(Number),
      error: { platformCode: '11101003' },
    });
    expect(Date.now() - sent).toBeGreaterThanOrEqual(3_000);
  });
});
