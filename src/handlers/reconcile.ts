/**
 * Answers that prove an earlier call in doubt took effect. They mean that only for a step in
 * doubt: for a fresh step, the same codes are ordinary business refusals.
 */
import { PlatformRejected } from '../errors.js';

/** 1112 DUPLICATE BIZID: the draft with this bizId already exists. */
export function draftAlreadyCreated(error: unknown): boolean {
  return answered(error, '1112');
}

/** 1101 INVALID CONTRACT STATUS: the contract is no longer a draft. */
export function alreadyInitiated(error: unknown): boolean {
  return answered(error, '1101');
}

function answered(error: unknown, code: string): boolean {
  return error instanceof PlatformRejected && error.details.platformCode === code;
}
