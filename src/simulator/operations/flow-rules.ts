/**
 * Rules on a signatory's signing flow, shared by draft creation and add-signatory: a company
 * signs through a non-empty flow (1103), approval nodes name approvers (1105), handler nodes a
 * handler (1111), our own companies' operators are active employees (11041701), and seals exist
 * (1201) in normal status (1203).
 */
import type { User } from '../../schemas/platform/resources.js';
import type { Directory } from '../directory.js';
import { refuse } from '../refusal.js';

export interface FlowNode {
  readonly type: string;
  readonly sealId?: string | undefined;
  readonly operators?: readonly User[] | undefined;
  readonly corpOperators?: readonly User[] | undefined;
  readonly corpSealIds?: readonly string[] | undefined;
}

export interface FlowOwner {
  readonly tenantType: 'COMPANY' | 'PERSONAL';
  readonly tenantName?: string | undefined;
  readonly actions?: readonly FlowNode[] | undefined;
}

export function checkFlow(signatory: FlowOwner): void {
  const name = signatory.tenantName ?? signatory.tenantType;
  const actions = signatory.actions ?? [];
  if (signatory.tenantType === 'COMPANY' && actions.length === 0) {
    refuse('1103', `company signatory "${name}" has no signing action`);
  }
  for (const action of actions) {
    if (
      action.type === 'AUDIT' &&
      signatory.tenantType === 'COMPANY' &&
      !action.operators?.length
    ) {
      refuse('1105', `the AUDIT action of "${name}" has no operators`);
    }
    if (action.type === 'OPERATOR' && !action.operators?.length && !action.corpOperators?.length) {
      refuse(
        '1111',
        `the OPERATOR action of "${name}" names no handler (operators or corpOperators)`,
      );
    }
  }
}

/** Only our own companies' people can be checked; an external company's staff is unknown to us. */
export function checkOperators(directory: Directory, signatory: FlowOwner): void {
  if (signatory.tenantType !== 'COMPANY' || !directory.isOwnTenant(signatory.tenantName ?? ''))
    return;
  for (const action of signatory.actions ?? []) {
    for (const user of [...(action.operators ?? []), ...(action.corpOperators ?? [])]) {
      if (!directory.isActiveEmployee(user)) {
        refuse('11041701', `no active employee has ${user.contactType} "${user.contact}"`);
      }
    }
  }
}

export function checkSeals(directory: Directory, actions: readonly FlowNode[]): void {
  for (const action of actions) {
    for (const id of sealIdsOf(action)) {
      const seal = directory.seal(id) ?? refuse('1201', `seal ${id} does not exist`);
      if (seal.status !== 'NORMAL') refuse('1203', `seal ${id} is ${seal.status}, not NORMAL`);
    }
  }
}

function sealIdsOf(action: FlowNode): string[] {
  return [...(action.sealId ? [action.sealId] : []), ...(action.corpSealIds ?? [])];
}
