import { describe, expect, it } from 'vitest';
import { StepUnresolvable } from '../../errors.js';
import type { PlannedStamper } from '../../schemas/messages/commands.js';
import { resolvePositions } from './positions.js';
import type { SignatoryIds } from './signatory-ids.js';

const ids: SignatoryIds[] = [
  { id: 'sig-initiator', actionIds: ['act-seal', 'act-operator'] },
  { id: 'sig-person', actionIds: [] },
];
const documentIds = ['doc-a', 'doc-b'];

describe('resolvePositions', () => {
  it('when positions name a signatory, an action and a document by index, then they get their ids', () => {
    const planned: PlannedStamper[] = [
      { type: 'COMPANY', signatoryIndex: 0, actionIndex: 1, documentIndex: 1, page: 1 },
      { type: 'PERSONAL', signatoryIndex: 1, keyword: 'Party B', offsetX: 10 },
    ];
    expect(resolvePositions(planned, ids, documentIds)).toEqual([
      {
        type: 'COMPANY',
        page: 1,
        signatoryId: 'sig-initiator',
        actionId: 'act-operator',
        documentId: 'doc-b',
      },
      {
        type: 'PERSONAL',
        keyword: 'Party B',
        offsetX: 10,
        signatoryId: 'sig-person',
        actionId: undefined,
        documentId: undefined,
      },
    ]);
  });

  it('when there are no positions, then there is nothing to resolve', () => {
    expect(resolvePositions([], undefined, [])).toEqual([]);
  });

  it('when the draft was reconciled (ids unknown), then every reference is named in one error', () => {
    const planned: PlannedStamper[] = [
      { type: 'COMPANY', signatoryIndex: 0, actionIndex: 0, page: 1 },
      { type: 'PERSONAL', signatoryIndex: 1, page: 1 },
    ];
    const resolving = () => resolvePositions(planned, undefined, documentIds);
    expect(resolving).toThrow(StepUnresolvable);
    expect(resolving).toThrow(/reconciled/);
    try {
      resolving();
    } catch (error) {
      expect((error as StepUnresolvable).details).toEqual({
        step: 'initiate',
        missing: [
          'initiate.stampers[0]: id of signatory 0',
          'initiate.stampers[0]: id of action 0',
          'initiate.stampers[1]: id of signatory 1',
        ],
      });
    }
  });

  it('when the draft returned fewer actions than the command planned, then the missing one is named', () => {
    const planned: PlannedStamper[] = [
      { type: 'LP', signatoryIndex: 0, actionIndex: 5, documentIndex: 0, page: 1 },
    ];
    expect(() => resolvePositions(planned, ids, documentIds)).toThrow(StepUnresolvable);
  });
});
