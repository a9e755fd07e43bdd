/** What every operation handler receives and returns. */
import type { z } from 'zod';
import type { OPERATIONS, OperationName } from '../../schemas/platform/operations.js';
import type { Clock } from '../clock.js';
import type { Directory } from '../directory.js';
import type { IdSequence } from '../ids.js';
import type { ContractRecord } from '../state/model.js';
import type { ContractStore } from '../state/store.js';

export interface OperationContext {
  readonly store: ContractStore;
  readonly directory: Directory;
  readonly clock: Clock;
  readonly ids: IdSequence;
}

/** The parsed request; add-by-file also carries the bytes of its `file` part. */
export type OperationInput<Op extends OperationName> = z.output<
  (typeof OPERATIONS)[Op]['request']
> &
  (Op extends 'addDocumentByFile' ? { readonly file?: Uint8Array } : unknown);

export interface Outcome {
  /** The envelope's `result`, when the operation has one. */
  readonly result?: unknown;
  /** The contract acted on, for the call log. */
  readonly contract?: ContractRecord;
}

export type OperationHandler<Op extends OperationName> = (
  request: OperationInput<Op>,
  ctx: OperationContext,
) => Outcome | Promise<Outcome>;

export type OperationHandlers = { readonly [Op in OperationName]: OperationHandler<Op> };
