import type { SigningClient } from '../api-client/index.js';
import type { FileLoader } from '../files/index.js';

/** The platform calls use cases make: the SigningClient, or a stand-in in tests. */
export type PlatformClient = Pick<
  SigningClient,
  | 'createDraft'
  | 'addDocumentByFile'
  | 'addDocumentByTemplate'
  | 'initiateContract'
  | 'approveContract'
  | 'remindSignatories'
  | 'addSignatory'
>;

export interface HandlerDeps {
  readonly client: PlatformClient;
  readonly files: Pick<FileLoader, 'load'>;
}
