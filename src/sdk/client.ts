/**
 * `signing-bridge/client`: the signing platform's HTTP client on its own, with its options and
 * every error it throws. It knows nothing of Kafka and loads none of it.
 */
export * from '../api-client/index.js';
export {
  type CallContext,
  ConfigInvalid,
  FileRejected,
  type InvalidField,
  OutcomeUnknown,
  PlatformRejected,
  RequestInvalid,
  RequestNotSent,
  ResponseInvalid,
  ResponseTooLarge,
  SigningBridgeError,
  type TransportFailureDetails,
  UnexpectedHttpStatus,
} from '../errors.js';
export {
  findPlatformCode,
  type OperationName,
  type OperationRequest,
  type OperationResult,
  PLATFORM_CODES,
  type PlatformCode,
  platformCode,
} from '../schemas/platform/index.js';
