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
import { type SendRecorder, Transport } from './transport.js';
import { validateRequest } from './validation.js';

export interface CallOptions {
  /** Aborts waiting, retrying and the request in flight; the call rejects with its reason. */
  readonly signal?: AbortSignal;
  /**
   * Which of the caller's classes of work the call belongs to: while calls of several
   * priorities wait for a rate token, tokens go to them in proportion to their weights
   * (SigningClientOptions.priorityWeights). Just a name to the client.
   */
  readonly priority?: string;
  /**
   * Told right before each attempt's request is written (it may hold the attempt until it has
   * recorded the call somewhere), and of each attempt that provably did not apply.
   */
  readonly recorder?: SendRecorder;
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
    return this.#transport.send({ path, body, result, context }, options);
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

  /**
   * The requests per second this client may make from now on (its share of a budget shared with
   * other processes, say), retries included: Infinity for no limit, 0 to send nothing until it is
   * raised. Unlike the `requestsPerSecond` option, 0 here does not mean unlimited. After a
   * throttling answer the rate in force stays below it for a while.
   */
  setRateLimit(requestsPerSecond: number): void {
    this.#transport.setRateLimit(requestsPerSecond);
  }

  /** The requests per second in force now: the limit, lowered after throttling answers. */
  get rateInForce(): number {
    return this.#transport.rateInForce;
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
    const sent = this.#transport.send({ path, body, result, context }, options);
    // TypeScript widens OPERATIONS[Op] to the union of all rows; the row is Op's own.
    return sent as Promise<OperationResult<Op>>;
  }
}
