/** The use cases, one per command type, as the consumer calls them. */
import { addDocument } from './add-document.js';
import { addSignatory } from './add-signatory.js';
import { approve } from './approve.js';
import { createContract } from './create-contract/saga.js';
import type { HandlerDeps } from './deps.js';
import { initiate } from './initiate.js';
import { remind } from './remind.js';
import type { Handlers } from './types.js';

export function createHandlers(deps: HandlerDeps): Handlers {
  return {
    'create-contract': createContract(deps),
    'add-document': addDocument(deps),
    initiate: initiate(deps),
    approve: approve(deps),
    remind: remind(deps),
    'add-signatory': addSignatory(deps),
  };
}

export type { HandlerDeps, PlatformClient } from './deps.js';
export { outcomeOf } from './outcome.js';
export type * from './types.js';
