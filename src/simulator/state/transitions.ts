/**
 * The state machine of section 3, as functions that update a contract record in place. Whether
 * a trigger is allowed (whose turn, which status) is the caller's rule to check first; these
 * only apply the consequences. `at` is the spec timestamp of the event.
 *
 * Signing order: with `ordinal` the signatories sign by ascending serialNo, those sharing a
 * serialNo together; without it everyone signs at once. Within a signatory, actions run one
 * after another by ascending serialNo (records keep the request's order, so ids map back).
 */
import type { ActionRecord, ContractRecord, SignatoryRecord } from './model.js';

/** Initiation: the contract is SIGNING and the first turn opens (section 3, initiate). */
export function startSigning(contract: ContractRecord, at: string): void {
  contract.status = 'SIGNING';
  contract.sendTime = at;
  for (const signatory of contract.signatories) {
    signatory.status = 'WAITING';
    for (const action of signatory.actions) action.status = 'INIT';
  }
  openNextTurn(contract, at);
}

/** The action a signing signatory is at (START), if any. */
export function currentAction(signatory: SignatoryRecord): ActionRecord | undefined {
  return signatory.actions.find((a) => a.status === 'START');
}

/** The signatory's current action is done; the next one starts, or the signatory has signed. */
export function finishCurrentAction(
  contract: ContractRecord,
  signatory: SignatoryRecord,
  at: string,
): void {
  const action = currentAction(signatory);
  if (action) finish(action, at);
  const next = nextAction(signatory);
  if (next) next.status = 'START';
  else completeSignatory(contract, signatory, at);
}

/** The signatory finishes every remaining action at once and has signed. */
export function signAll(contract: ContractRecord, signatory: SignatoryRecord, at: string): void {
  for (const action of signatory.actions) {
    if (action.status === 'INIT' || action.status === 'START') finish(action, at);
  }
  completeSignatory(contract, signatory, at);
}

/** A signatory (or one of its approvers) refused: the contract is REJECTED. */
export function reject(contract: ContractRecord, signatory: SignatoryRecord, at: string): void {
  stopRunningActions(contract);
  signatory.status = 'REJECTED';
  signatory.complateTime = at;
  contract.status = 'REJECTED';
  contract.complateTime = at;
}

/** The expiry time passed while signing: whoever has not signed will not. */
export function expire(contract: ContractRecord, at: string): void {
  stopRunningActions(contract);
  for (const signatory of contract.signatories) {
    if (signatory.status === 'SIGNING' || signatory.status === 'WAITING')
      signatory.status = 'EXPIRED';
  }
  contract.status = 'EXPIRED';
  contract.complateTime = at;
}

/** Add-signatory after initiation: a COMPLETE contract is signing again until the newcomer signs. */
export function addLateSignatory(
  contract: ContractRecord,
  signatory: SignatoryRecord,
  at: string,
): void {
  signatory.status = 'WAITING';
  contract.signatories.push(signatory);
  if (contract.status === 'COMPLETE') {
    contract.status = 'SIGNING';
    delete contract.complateTime;
  }
  openNextTurn(contract, at);
}

function completeSignatory(contract: ContractRecord, signatory: SignatoryRecord, at: string): void {
  signatory.status = 'SIGNED';
  signatory.complateTime = at;
  openNextTurn(contract, at);
}

/** Starts whoever signs next, or completes the contract when everyone has signed. */
function openNextTurn(contract: ContractRecord, at: string): void {
  const waiting = contract.signatories.filter((s) => s.status === 'WAITING');
  const signing = contract.signatories.some((s) => s.status === 'SIGNING');
  if (waiting.length === 0) {
    if (!signing) complete(contract, at);
    return;
  }
  if (contract.ordinal && signing) return;
  const lowest = Math.min(...waiting.map((s) => s.serialNo));
  const turn = contract.ordinal ? waiting.filter((s) => s.serialNo === lowest) : waiting;
  for (const signatory of turn) startSignatory(signatory);
}

function startSignatory(signatory: SignatoryRecord): void {
  signatory.status = 'SIGNING';
  // An individual without a flow has no action to start: it signs as a whole.
  const first = nextAction(signatory);
  if (first) first.status = 'START';
}

function nextAction(signatory: SignatoryRecord): ActionRecord | undefined {
  let next: ActionRecord | undefined;
  for (const action of signatory.actions) {
    if (action.status === 'INIT' && (!next || action.serialNo < next.serialNo)) next = action;
  }
  return next;
}

function complete(contract: ContractRecord, at: string): void {
  contract.status = 'COMPLETE';
  contract.complateTime = at;
}

function finish(action: ActionRecord, at: string): void {
  action.status = 'FINISH';
  action.complateTime = at;
}

function stopRunningActions(contract: ContractRecord): void {
  for (const signatory of contract.signatories) {
    for (const action of signatory.actions) if (action.status === 'START') action.status = 'STOP';
  }
}
