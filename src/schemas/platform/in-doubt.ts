/**
 * What the bridge does with a platform call whose outcome it does not know: the request was sent
 * and no readable answer came (a timeout after sending, a reset mid-answer, an unreadable or
 * oversized answer, a gateway's 500/502/504, the platform's 21990001), or the process died
 * between recording the call `started` and recording it `done`.
 *
 * Only the platform's own answers can prove what happened, and only where the spec says so; the
 * bridge invents no lookup the interface lacks. Where nothing proves it, the call is not made
 * again: the command ends with SB_ERR_COMMAND_OUTCOME_UNKNOWN and the producer or an operator
 * decides. One table, read by the handlers and written into docs/design.md.
 */
import type { OperationName } from './operations.js';

export type InDoubtRule =
  /** Call again: an answer the spec defines proves whether the earlier call took effect. */
  | 'reconcile'
  /** Do not call again: end the command with "outcome unknown". */
  | 'report';

export interface InDoubtRow {
  readonly rule: InDoubtRule;
  /** What the bridge does, in a sentence. */
  readonly action: string;
  /** What in the spec supports the rule (section numbers of the interface spec). */
  readonly evidence: string;
}

const NO_LOOKUP =
  'The interface has no operation that reads a contract, its documents, signatories, approvals or reminders (spec §4 lists seven operations, none a query)';

export const WHEN_IN_DOUBT: Readonly<Record<OperationName, InDoubtRow>> = {
  createDraft: {
    rule: 'reconcile',
    action:
      'Calls again. 1112 DUPLICATE BIZID then proves the earlier call created the draft: the step is done (its answer, with the signatory and action ids, is lost, so later steps address the contract by bizId).',
    evidence:
      'A contract has one bizId, which must not repeat (§2.1); a repeated bizId yields 1112 (§4.1 rule 5). The bridge runs a bizId’s commands one at a time, so none of its other commands is creating it meanwhile.',
  },
  addDocumentByFile: {
    rule: 'report',
    action: 'Does not call again: the command ends with "outcome unknown".',
    evidence: `${NO_LOOKUP}. A second call adds a second document (§3: "a document is added" on every call while the contract is a DRAFT).`,
  },
  addDocumentByTemplate: {
    rule: 'report',
    action: 'Does not call again: the command ends with "outcome unknown".',
    evidence: `${NO_LOOKUP}. A second call adds a second document (§3).`,
  },
  initiateContract: {
    rule: 'reconcile',
    action:
      'Calls again. 1101 INVALID CONTRACT STATUS then proves the contract already left DRAFT: the step is done.',
    evidence:
      'Only a DRAFT can be initiated, otherwise 1101 (§4.4); initiation moves it out of DRAFT (§3). The spec does not show other transitions (§3), so the rule rests on an assumption, stated here: none of the seven operations moves a draft out of DRAFT except initiation, so for a draft the bridge created 1101 means it was initiated. A draft changed outside the interface (recalled in the platform’s own web pages, for example) would make this step end as done.',
  },
  approveContract: {
    rule: 'report',
    action: 'Does not call again: the command ends with "outcome unknown".',
    evidence: `${NO_LOOKUP}. A second call answers 11011107 (not this signer's turn) or 11011101 (invalid status) whether or not the first took effect (§4.4a), so neither proves anything.`,
  },
  remindSignatories: {
    rule: 'report',
    action: 'Does not call again: the command ends with "outcome unknown".',
    evidence: `${NO_LOOKUP}. A second call sends every signatory a second notice (§4.5). A reminder reaches people outside the company, so the bridge leaves a repeat to the producer.`,
  },
  addSignatory: {
    rule: 'report',
    action: 'Does not call again: the command ends with "outcome unknown".',
    evidence: `${NO_LOOKUP}. 1102 DUPLICATE SIGNATORY belongs to draft creation (§4.1), not to add-signatory (§4.6): a second call adds a second signatory.`,
  },
};
