/**
 * The create-contract saga against the simulator: the whole flow, its failures by family, its
 * resumption from every step, and the reconciliation of steps left in doubt by a crash.
 */
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/handlers/index.js';
import { uniqueId } from '../support/unique.js';
import {
  fileDocument,
  initiator,
  meta,
  person,
  SUBSIDIARY,
  templateDocument,
  useBench,
} from './support/bench.js';
import { MemoryLedger, SimulatedCrash } from './support/memory-ledger.js';

const bench = useBench();

/** Two documents, a file and a template, and positions for both signatories on the first. */
async function fullCommand(bizId: string, options: { positions?: boolean } = {}) {
  const stampers = [
    { type: 'COMPANY', signatoryIndex: 0, actionIndex: 0, documentIndex: 0, keyword: 'SEAL-HERE' },
    { type: 'PERSONAL', signatoryIndex: 1, documentIndex: 0, keyword: 'SIGN-HERE' },
  ];
  return {
    ...meta(bizId),
    payload: {
      contract: { subject: `Contract ${bizId}`, signatories: [initiator(), person(1)] },
      documents: [await fileDocument('Agreement'), templateDocument('NDA')],
      initiate: options.positions === false ? {} : { stampers },
    },
  };
}

function terminalData(outcome: Outcome) {
  if (outcome.kind !== 'completed') throw new Error(`expected completed, got ${outcome.kind}`);
  expect(outcome.event.type).toBe('signingbridge.contract.created');
  return outcome.event.data as {
    contractId?: string;
    documentIds: string[];
    initiated: boolean;
    reconciled: boolean;
  };
}

function failure(outcome: Outcome) {
  if (outcome.kind === 'completed') throw new Error('expected a failure, got completed');
  return {
    kind: outcome.kind,
    step: outcome.step,
    code: outcome.error.code,
    details: outcome.error.details,
    ...(outcome.kind === 'retry' ? { reason: outcome.reason } : { final: outcome.final }),
  };
}

describe('create-contract', () => {
  it('when documents and positions are given, then the draft is made, the documents added in order and the contract initiated at the positions', async () => {
    const bizId = uniqueId('create');
    const ledger = new MemoryLedger();
    const data = terminalData(await bench.run('create-contract', await fullCommand(bizId), ledger));

    const record = await bench.sim.admin.contract({ bizId });
    expect(data).toEqual({
      commandId: expect.any(String),
      bizId,
      commandType: 'create-contract',
      contractId: record.id,
      documentIds: record.documents.map((d) => d.id),
      initiated: true,
      reconciled: false,
    });
    expect(record.status).toBe('SIGNING');
    const [company, individual] = record.signatories;
    expect(record.positions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'COMPANY', actionId: company?.actions[0]?.id }),
        expect.objectContaining({ type: 'PERSONAL', signatoryId: individual?.id }),
      ]),
    );
    expect(record.positions.every((p) => p.documentId === data.documentIds[0])).toBe(true);
    expect(ledger.published.map((e) => [e.type, e.step])).toEqual([
      ['signingbridge.draft.created', 'draft'],
      ['signingbridge.document.added', 'document:0'],
      ['signingbridge.document.added', 'document:1'],
    ]);
    expect(ledger.published[2]?.data).toMatchObject({ index: 1, title: 'NDA' });
  });

  it('when the draft is created, then draft.created lists its signatories by id, type, status and place in the command, without names or contacts of individuals', async () => {
    const bizId = uniqueId('draft-view');
    const ledger = new MemoryLedger();
    const command = await fullCommand(bizId);
    await bench.run('create-contract', command, ledger);

    const record = await bench.sim.admin.contract({ bizId });
    const [company, individual] = record.signatories;
    const draft = ledger.published.find((e) => e.type === 'signingbridge.draft.created');
    expect(draft?.data).toMatchObject({
      contractId: record.id,
      subject: `Contract ${bizId}`,
      signatories: [
        {
          index: 0,
          id: company?.id,
          tenantType: 'COMPANY',
          tenantName: command.payload.contract.signatories[0]?.tenantName,
          actions: [{ id: company?.actions[0]?.id, type: 'COMPANY' }],
        },
        { index: 1, id: individual?.id, tenantType: 'PERSONAL', actions: [] },
      ],
    });
    const published = JSON.stringify(draft);
    expect(published).not.toContain('Person 1');
    expect(published).not.toContain(person(1).receiver.contact);
    expect(published).not.toMatch(/receiver|userAuthInfo|contact|operators/);
  });

  it('when initiate is not asked, then the contract stays a draft with its documents', async () => {
    const bizId = uniqueId('draft-only');
    const command = await fullCommand(bizId);
    const { initiate: _, ...payload } = command.payload;
    const data = terminalData(await bench.run('create-contract', { ...command, payload }));
    expect(data).toMatchObject({ initiated: false, reconciled: false });
    expect((await bench.sim.admin.contract({ bizId })).status).toBe('DRAFT');
  });

  it('when tenantName names a subsidiary, then the contract is created in its name', async () => {
    const bizId = uniqueId('subsidiary');
    const command = {
      ...meta(bizId, SUBSIDIARY),
      payload: {
        contract: { signatories: [person(2)], subject: 'Subsidiary contract' },
        documents: [templateDocument()],
        initiate: {},
      },
    };
    terminalData(await bench.run('create-contract', command));
    const record = await bench.sim.admin.contract({ bizId });
    expect(record).toMatchObject({ tenantName: SUBSIDIARY, status: 'SIGNING' });
  });
});

describe('create-contract failures', () => {
  it('when the platform refuses the draft with a business code (1102), then the command fails at step draft', async () => {
    const command = await fullCommand(uniqueId('dup-signatory'));
    command.payload.contract.signatories = [person(3), person(3)];
    command.payload.initiate = {};
    expect(failure(await bench.run('create-contract', command))).toMatchObject({
      kind: 'failed',
      step: 'draft',
      details: { platformCode: '1102', family: 'business' },
    });
  });

  it('when the bizId is already used and the draft was not in doubt, then 1112 fails the command', async () => {
    const bizId = uniqueId('taken');
    terminalData(await bench.run('create-contract', await fullCommand(bizId)));
    expect(failure(await bench.run('create-contract', await fullCommand(bizId)))).toMatchObject({
      kind: 'failed',
      step: 'draft',
      details: { platformCode: '1112' },
    });
  });

  it('when a file cannot be converted (1403), then the command fails at that document', async () => {
    const command = await fullCommand(uniqueId('bad-file'));
    command.payload.documents = [
      templateDocument(),
      { source: 'file', title: 'Broken', fileSuffix: 'pdf', file: { base64: 'bm90IGEgcGRm' } },
    ] as never;
    command.payload.initiate = {};
    expect(failure(await bench.run('create-contract', command))).toMatchObject({
      kind: 'failed',
      step: 'document:1',
      details: { platformCode: '1403' },
    });
  });

  it('when a position keyword is in no document (1108), then the command fails at step initiate', async () => {
    const command = await fullCommand(uniqueId('no-keyword'));
    command.payload.initiate = {
      stampers: [{ type: 'PERSONAL', signatoryIndex: 1, keyword: 'NOT-THERE' }],
    } as never;
    expect(failure(await bench.run('create-contract', command))).toMatchObject({
      kind: 'failed',
      step: 'initiate',
      details: { platformCode: '1108' },
    });
  });

  it('when the platform answers 503, then the step is retried as transient, and the next run completes', async () => {
    const bizId = uniqueId('503');
    const command = await fullCommand(bizId);
    const ledger = new MemoryLedger();
    await bench.sim.admin.setFaults({
      script: [{ operation: 'addDocumentByTemplate', kind: 'http503', times: 1 }],
    });
    expect(failure(await bench.run('create-contract', command, ledger))).toMatchObject({
      kind: 'retry',
      reason: 'outage',
      step: 'document:1',
      details: { httpStatus: 503 },
    });
    const data = terminalData(await bench.run('create-contract', command, ledger));
    expect(data.documentIds).toHaveLength(2);
    expect((await bench.sim.admin.contract({ bizId })).documents).toHaveLength(2);
  });

  it('when the platform answers its internal error (21990001), then the step is retried as transient', async () => {
    await bench.sim.admin.setFaults({
      script: [{ operation: 'createDraft', kind: 'code21990001', times: 1 }],
    });
    const outcome = await bench.run('create-contract', await fullCommand(uniqueId('21990001')));
    expect(outcome).toMatchObject({ kind: 'retry', reason: 'transient', step: 'draft' });
  });
});

describe('create-contract resumed after a crash', () => {
  it.each([
    ['document:0', 1],
    ['document:1', 2],
    ['initiate', 3],
  ])(
    'when the run crashed before step %s, then the next run skips the steps done and makes no call twice',
    async (step, callsBefore) => {
      const bizId = uniqueId('resume');
      const command = await fullCommand(bizId);
      const ledger = new MemoryLedger().crashAt(step, 'started');
      await expect(bench.run('create-contract', command, ledger)).rejects.toThrow(SimulatedCrash);
      expect(await callsFor(bizId)).toBe(callsBefore);

      const data = terminalData(await bench.run('create-contract', command, ledger));
      expect(data).toMatchObject({ initiated: true, reconciled: false });
      const record = await bench.sim.admin.contract({ bizId });
      expect(record.documents.map((d) => d.id)).toEqual(data.documentIds);
      expect(record.status).toBe('SIGNING');
      expect(await callsFor(bizId)).toBe(4);
    },
  );

  it('when every step was done and only the end was lost, then the next run calls nothing and completes', async () => {
    const bizId = uniqueId('all-done');
    const command = await fullCommand(bizId);
    const ledger = new MemoryLedger();
    const first = terminalData(await bench.run('create-contract', command, ledger));
    const second = terminalData(await bench.run('create-contract', command, ledger));
    expect(second).toEqual(first);
    expect(await callsFor(bizId)).toBe(4);
  });

  it('when the draft is in doubt and the retry answers 1112, then the saga goes on by bizId and ends reconciled', async () => {
    const bizId = uniqueId('doubt-draft');
    const command = await fullCommand(bizId, { positions: false });
    const ledger = new MemoryLedger().crashAt('draft', 'done');
    await expect(bench.run('create-contract', command, ledger)).rejects.toThrow(SimulatedCrash);
    expect(ledger.steps.draft).toEqual({ state: 'started' });

    const data = terminalData(await bench.run('create-contract', command, ledger));
    expect(data).toMatchObject({ contractId: undefined, initiated: true, reconciled: true });
    const record = await bench.sim.admin.contract({ bizId });
    expect(record.status).toBe('SIGNING');
    expect(record.documents.map((d) => d.id)).toEqual(data.documentIds);
    expect(ledger.published.map((e) => e.type)).not.toContain('signingbridge.draft.created');
  });

  it('when the draft is in doubt and positions need its ids, then the documents are added and initiate fails, naming what is unknown', async () => {
    const bizId = uniqueId('doubt-positions');
    const command = await fullCommand(bizId);
    const ledger = new MemoryLedger().crashAt('draft', 'done');
    await expect(bench.run('create-contract', command, ledger)).rejects.toThrow(SimulatedCrash);
    expect(failure(await bench.run('create-contract', command, ledger))).toMatchObject({
      kind: 'failed',
      step: 'initiate',
      details: { step: 'initiate', missing: expect.arrayContaining([expect.any(String)]) },
    });
    const record = await bench.sim.admin.contract({ bizId });
    expect(record).toMatchObject({ status: 'DRAFT' });
    expect(record.documents).toHaveLength(2);
  });

  it('when initiation is in doubt and the retry answers 1101, then it counts as done and the saga ends reconciled', async () => {
    const bizId = uniqueId('doubt-initiate');
    const command = await fullCommand(bizId);
    const ledger = new MemoryLedger().crashAt('initiate', 'done');
    await expect(bench.run('create-contract', command, ledger)).rejects.toThrow(SimulatedCrash);

    const data = terminalData(await bench.run('create-contract', command, ledger));
    expect(data).toMatchObject({ initiated: true, reconciled: true });
    expect(data.contractId).toBe((await bench.sim.admin.contract({ bizId })).id);
  });

  it('when a document is in doubt, then it is not added again: the command fails "outcome unknown" (not final), and sent again it adds it', async () => {
    const bizId = uniqueId('doubt-document');
    const command = await fullCommand(bizId, { positions: false });
    const ledger = new MemoryLedger().crashAt('document:0', 'done');
    await expect(bench.run('create-contract', command, ledger)).rejects.toThrow(SimulatedCrash);
    const calls = await callsFor(bizId);
    expect(failure(await bench.run('create-contract', command, ledger))).toMatchObject({
      kind: 'failed',
      final: false,
      step: 'document:0',
      code: 'SB_ERR_COMMAND_OUTCOME_UNKNOWN',
      details: {
        operation: 'addDocumentByFile',
        reason: 'the process stopped while the call was under way',
      },
    });
    expect(await callsFor(bizId)).toBe(calls);
    const titles = async () =>
      (await bench.sim.admin.contract({ bizId })).documents.map((d) => d.title);
    expect(await titles()).toEqual(['Agreement']);
    // The producer looked, found it (here, it is there: a real platform may differ) and sends
    // the command again anyway: that asks for the call again.
    ledger.resent = true;
    const data = terminalData(await bench.run('create-contract', command, ledger));
    expect(await titles()).toEqual(['Agreement', 'Agreement', 'NDA']);
    expect(data.documentIds).toHaveLength(2);
  });
});

/** Platform calls made for the contract of `bizId` (the call log names its bizId however it was addressed). */
async function callsFor(bizId: string): Promise<number> {
  return (await bench.sim.admin.calls({ bizId })).length;
}
