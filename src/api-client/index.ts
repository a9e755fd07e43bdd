export type { UnlistedValue } from '../schemas/platform/answers.js';
export type { AddDocumentByFileInput, CallOptions } from './client.js';
export { SigningClient } from './client.js';
export {
  type CallVerdict,
  type Delivery,
  OUTAGE_CAUSES,
  type OutageCause,
  verdictOf,
} from './delivery.js';
export type { FileSource } from './file-upload.js';
export type {
  CallInfo,
  RetrySettings,
  SigningClientOptions,
  Timeouts,
} from './settings.js';
export {
  DEFAULTS as CLIENT_DEFAULTS,
  MAX_CALL_MS,
  MAX_RESPONSE_BYTES_LIMIT,
  undiciTimeoutMs,
} from './settings.js';
export type { AuthHeaderNames, AuthValues, RequestSigner, SignerInput } from './signature.js';
export {
  authHeaderNames,
  authHeaders,
  DEFAULT_HEADER_PREFIX,
  md5Signature,
  md5Signer,
} from './signature.js';
export type { SendRecorder } from './transport.js';
