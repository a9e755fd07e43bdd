/**
 * The seven operations of the signing open interface, one method each. Every method is the same
 * path through the OPERATIONS table: check the request locally, then hand it to the transport.
 */

import { writeJson } from '../schemas/platform/json-text.js';
import {
  type AddDocumentByFileRequest,
  OPERATIONS,
  type OperationName,
  type OperationRequest,
  type OperationResult,
} from '../schemas/platform/operations.js';
import type { FileSuffix } from '../schemas/platform/primitives.js';
import { longIdPaths } from '../schemas/platform/schema-paths.js';
import { callContext } from './call-context.js';
import { type FileSource, fileSuffixOf, multipartBody, readFileSource } from './file-upload.js';
import { resolveSettings, type SigningClientOptions } from './settings.js';
import { Transport } from './transport.js';
import { validateRequest } from './validation.js';

export interface CallOptions {
  /** Aborts waiting, retrying and the request in flight; the call rejects with its reason. */
  readonly signal?: AbortSignal;
}

/** Add-by-file's form fields and its file; the suffix may be left to the file's path. */
export type AddDocumentByFileInput = Omit<AddDocumentByFileRequest, 'fileSuffix'> & {
  readonly fileSuffix?: FileSuffix;
  readonly file: FileSource;
};

type JsonOperation = Exclude<OperationName, 'addDocumentByFile'>;

export class SigningClient {
  readonly #transport: Transport;
  readonly #maxFileBytes: number;

  constructor(options: SigningClientOptions) {
    const settings = resolveSettings(options);
    this.#transport = new Transport(settings);
    this.#maxFileBytes = settings.maxFileBytes;
  }

  /** POST /v2/contract/draft: the draft as the platform filled it (ids, status). */
  createDraft(request: OperationRequest<'createDraft'>, options?: CallOptions) {
    return this.#send('createDraft', request, options);
  }

  /** POST /v2/document/addbyfile, as multipart. */
  async addDocumentByFile(
    { file, ...request }: AddDocumentByFileInput,
    options?: CallOptions,
  ): Promise<OperationResult<'addDocumentByFile'>> {
    const { path, request: schema, result } = OPERATIONS.addDocumentByFile;
    const context = callContext('addDocumentByFile', request);
    const fileSuffix = fileSuffixOf(file, request.fileSuffix, context);
    const fields = validateRequest(schema, { ...request, fileSuffix }, context);
    const part = await readFileSource(file, fileSuffix, { maxBytes: this.#maxFileBytes, context });
    const body = multipartBody(fields, part);
    return this.#transport.send({ path, body, result, context }, options?.signal);
  }

  /** POST /v2/document/addbytemplate. */
  addDocumentByTemplate(request: OperationRequest<'addDocumentByTemplate'>, options?: CallOptions) {
    return this.#send('addDocumentByTemplate', request, options);
  }

  /** POST /v2/contract/send, with optional signing positions. */
  initiateContract(request: OperationRequest<'initiateContract'>, options?: CallOptions) {
    return this.#send('initiateContract', request, options);
  }

  /** POST /v2/contract/employeeaudit. */
  approveContract(request: OperationRequest<'approveContract'>, options?: CallOptions) {
    return this.#send('approveContract', request, options);
  }

  /** POST /v2/contract/notice. */
  remindSignatories(request: OperationRequest<'remindSignatories'>, options?: CallOptions) {
    return this.#send('remindSignatories', request, options);
  }

  /** POST /v2/signatory/add: the signatory as the platform filled it. */
  addSignatory(request: OperationRequest<'addSignatory'>, options?: CallOptions) {
    return this.#send('addSignatory', request, options);
  }

  /** Closes the pool the client built; a dispatcher passed in is its owner's to close. */
  close(): Promise<void> {
    return this.#transport.close();
  }

  async #send<Op extends JsonOperation>(
    operation: Op,
    request: OperationRequest<Op>,
    options: CallOptions | undefined,
  ): Promise<OperationResult<Op>> {
    const { path, request: schema, result } = OPERATIONS[operation];
    const context = callContext(operation, request);
    // Ids the spec types as Long go out as bare JSON numbers, every digit kept.
    const body = writeJson(validateRequest(schema, request, context), longIdPaths(schema));
    const sent = this.#transport.send({ path, body, result, context }, options?.signal);
    // TypeScript widens OPERATIONS[Op] to the union of all rows; the row is Op's own.
    return sent as Promise<OperationResult<Op>>;
  }
}
