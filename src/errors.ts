/**
 * signing-bridge's own errors, in one catalogue. Each has a stable `code`
 * (`SB_ERR_<AREA>_<WHAT>`), a message that says what to do, a `retryable` flag the consumer
 * decides by, structured `details`, and the `cause` it wraps. What each code means and what to
 * do is in error-codes.ts (docs/error-codes.md). The platform's own codes live in
 * `schemas/platform/codes.ts`; `PlatformRejected` carries one of those.
 */
import type { ErrorCode } from './error-codes.js';
import type { InvalidField } from './schemas/issues.js';
import type { PlatformCode } from './schemas/platform/codes.js';

export interface ErrorOptions<D> {
  readonly details: D;
  readonly cause?: unknown;
}

export abstract class SigningBridgeError<D = Record<string, unknown>> extends Error {
  /** A key of ERROR_CODES (error-codes.ts): a new class needs its row there to compile. */
  abstract readonly code: ErrorCode;
  abstract readonly retryable: boolean;
  readonly details: D;

  constructor(message: string, options: ErrorOptions<D>) {
    super(message, { cause: options.cause });
    this.details = options.details;
  }

  override get name(): string {
    return this.constructor.name;
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      details: this.details,
    };
  }
}

/** Which contract a call addressed, so every failure can be traced to it. */
export interface CallContext {
  readonly operation: string;
  readonly bizId?: string | undefined;
  readonly contractId?: string | undefined;
}

export type { InvalidField } from './schemas/issues.js';

/** A request broke a rule of the spec and was refused before any network call. */
export class RequestInvalid extends SigningBridgeError<CallContext & { fields: InvalidField[] }> {
  readonly code = 'SB_ERR_REQUEST_INVALID';
  readonly retryable = false;
}

/**
 * A file for add-by-file was refused before upload: wrong suffix, too large, unreadable, or (for
 * a file given by URL) a host outside the allow-list or an address on a private network.
 */
export class FileRejected extends SigningBridgeError<
  CallContext & {
    reason: 'suffix' | 'size' | 'unreadable' | 'host-not-allowed' | 'private-address';
    limitBytes?: number;
    /** The URL of a downloaded file, without its query (which may hold a signature). */
    url?: string;
  }
> {
  readonly code = 'SB_ERR_FILE_REJECTED';
  readonly retryable = false;
}

/**
 * A file given by URL could not be downloaded. Retryable when the failure may pass (a timeout,
 * a dropped connection, a 5xx, 408 or 429); a 4xx or a redirect loop is final.
 */
export class FileFetchFailed extends SigningBridgeError<
  CallContext & { url: string; reason: string; httpStatus?: number; transient: boolean }
> {
  readonly code = 'SB_ERR_FILE_FETCH_FAILED';
  get retryable(): boolean {
    return this.details.transient;
  }
}

/** The platform answered with a failure code; retryable when the code's family is transient. */
export class PlatformRejected extends SigningBridgeError<
  CallContext & {
    platformCode: string;
    /** The code exactly as the platform sent it (e.g. padded `00001101`). */
    rawCode: string;
    platformName: string | undefined;
    platformMessage: string;
    httpStatus: number;
    family: PlatformCode['family'] | 'unknown';
  }
> {
  readonly code = 'SB_ERR_PLATFORM_REJECTED';
  get retryable(): boolean {
    return this.details.family === 'transient' || this.details.family === 'throttled';
  }
}

/**
 * What a transport failure carries: the undici or socket code (`ECONNREFUSED`,
 * `UND_ERR_SOCKET`), or `CALL_DEADLINE_EXCEEDED` with the deadline that passed.
 */
export type TransportFailureDetails = CallContext & { reason: string; deadlineMs?: number };

/**
 * The request never reached the platform (refused, reset before writing, DNS, or the call's
 * deadline passed before it was written): safe to retry.
 */
export class RequestNotSent extends SigningBridgeError<TransportFailureDetails> {
  readonly code = 'SB_ERR_TRANSPORT_NOT_SENT';
  readonly retryable = true;
}

/**
 * The request was written but no whole answer came (the call's deadline passed, a reset while
 * waiting). The platform may or may not have acted: a retry of create or initiate must reconcile
 * (1112 / 1101 on retry).
 */
export class OutcomeUnknown extends SigningBridgeError<TransportFailureDetails> {
  readonly code = 'SB_ERR_TRANSPORT_OUTCOME_UNKNOWN';
  readonly retryable = true;
}

/**
 * The platform answered with an HTTP status and no readable envelope (e.g. a proxy's 503).
 * Retryable for the command (502, 503, 504); the client itself does not retry it: the request
 * reached something, and only the caller can reconcile.
 */
export class UnexpectedHttpStatus extends SigningBridgeError<
  CallContext & {
    httpStatus: number;
    /** The answer's `content-type`, when it had one (an excerpt). */
    contentType?: string;
    /** The start of the answer's text: at most 200 characters. */
    bodyExcerpt: string;
  }
> {
  readonly code = 'SB_ERR_TRANSPORT_HTTP_STATUS';
  get retryable(): boolean {
    return [502, 503, 504].includes(this.details.httpStatus);
  }
}

/**
 * The platform's answer did not match the spec: `not-envelope`, a 2xx answer that is not a JSON
 * envelope at all (an HTML page, say); `shape`, an envelope whose result breaks the spec's shape.
 */
export class ResponseInvalid extends SigningBridgeError<
  CallContext & {
    reason: 'not-envelope' | 'shape';
    httpStatus: number;
    /** The answer's `content-type`, when it had one (an excerpt). */
    contentType?: string;
    fields: InvalidField[];
  }
> {
  readonly code = 'SB_ERR_RESPONSE_INVALID';
  readonly retryable = false;
}

/**
 * A call that changes something was sent and its outcome is unknown (see `reason`), and nothing
 * the platform answers can tell whether it took effect: the bridge does not call again, since a
 * second call could apply it twice (docs/design.md, "When the platform misbehaves").
 */
export class CommandOutcomeUnknown extends SigningBridgeError<{
  operation: string;
  step: string;
  /** What the call asked for, without personal data (a document's title, an approval's verdict). */
  sent: string;
  bizId: string;
  contractId?: string | undefined;
  /** What left it unknown: the call's failure, or the process dying while it was under way. */
  reason: string;
  /** The code of the failure that left it unknown, when a call failed. */
  causeCode?: string | undefined;
}> {
  readonly code = 'SB_ERR_COMMAND_OUTCOME_UNKNOWN';
  readonly retryable = false;
}

/**
 * The platform's answer was larger than the client's `maxResponseBytes`: the client stopped
 * reading it and closed the connection. The request had been sent, so the platform may have
 * acted; no answer of the spec comes near the limit, so this is not retried.
 */
export class ResponseTooLarge extends SigningBridgeError<
  CallContext & { limitBytes: number; httpStatus: number }
> {
  readonly code = 'SB_ERR_RESPONSE_TOO_LARGE';
  readonly retryable = false;
}

/**
 * A saga step needs ids that only a lost result held: after a draft reconciled by 1112 the
 * signatory and action ids are unknown, so planned positions cannot be resolved.
 */
export class StepUnresolvable extends SigningBridgeError<{ step: string; missing: string[] }> {
  readonly code = 'SB_ERR_SAGA_STEP_UNRESOLVABLE';
  readonly retryable = false;
}

/** Configuration is wrong; start-up stops with every bad variable named. */
export class ConfigInvalid extends SigningBridgeError<{ variables: InvalidField[] }> {
  readonly code = 'SB_ERR_CONFIG_INVALID';
  readonly retryable = false;
}

/** A command record could not be read, broke its schema, or was keyed by something else. */
export class CommandInvalid extends SigningBridgeError<{
  topic: string;
  partition: number;
  offset: string;
  reason: 'not-json' | 'schema' | 'key';
  /** The first few issues; `fieldsOmitted` counts the others. */
  fields: InvalidField[];
  fieldsOmitted: number;
}> {
  readonly code = 'SB_ERR_COMMAND_INVALID';
  readonly retryable = false;
}

/**
 * A command record is over one of the limits checked before it is decoded or validated (its key,
 * value or headers too large, its JSON too deep or with too long an array). It is rejected like
 * an invalid command; the limit is named so the producer can be fixed.
 */
export class CommandLimitExceeded extends SigningBridgeError<{
  topic: string;
  partition: number;
  offset: string;
  /** The configuration variable that sets the limit. */
  limit: string;
  max: number;
  actual: number;
  /** Where in the JSON value, for a limit on its structure. */
  path?: string | undefined;
}> {
  readonly code = 'SB_ERR_COMMAND_LIMIT_EXCEEDED';
  readonly retryable = false;
}

/**
 * The process died `deaths` times while this command record ran alone after a crash: it is
 * dead-lettered rather than run again, so that one record cannot keep the service down.
 */
export class CommandCrashLoop extends SigningBridgeError<{
  topic: string;
  partition: number;
  offset: string;
  deaths: number;
}> {
  readonly code = 'SB_ERR_COMMAND_CRASH_LOOP';
  readonly retryable = false;
}

/**
 * A command record's key or value is not valid UTF-8 (a producer writing GBK or Latin-1, say).
 * Decoding it anyway would turn the bytes it cannot read into U+FFFD, so two different keys could
 * name one bizId: it is rejected instead, never replaced.
 */
export class CommandNotUtf8 extends SigningBridgeError<{
  topic: string;
  partition: number;
  offset: string;
  part: 'key' | 'value';
}> {
  readonly code = 'SB_ERR_COMMAND_ENCODING_INVALID';
  readonly retryable = false;
}

/**
 * A commandId of this bizId was used before by a command with other content (its fingerprint
 * differs): the id names one intended action, so the second one is refused rather than run or
 * taken for a duplicate.
 */
export class CommandIdReused extends SigningBridgeError<{
  topic: string;
  partition: number;
  offset: string;
  commandId: string;
  bizId: string;
  /** The fingerprint of the command that used the commandId first, and this one's. */
  firstFingerprint: string;
  fingerprint: string;
  /** How that first use stands: ended with the platform's verdict, ended otherwise, or running. */
  firstUse: 'ended-final' | 'ended-not-final' | 'under-way';
}> {
  readonly code = 'SB_ERR_COMMAND_ID_REUSED';
  readonly retryable = false;
}

/**
 * A command record is older than what the ledger of its partition can vouch for (its timestamp
 * before the partition's effective replay window): whether it already ran is no longer known, so
 * it is refused rather than run a second time.
 */
export class CommandExpired extends SigningBridgeError<{
  topic: string;
  partition: number;
  offset: string;
  /** The record's timestamp, and the oldest the partition vouches for (ISO 8601). */
  recordTime: string;
  vouchedSince: string;
}> {
  readonly code = 'SB_ERR_COMMAND_EXPIRED';
  readonly retryable = false;
}

/** Why a command record was refused (command.rejected and a dead-letter copy): one of these. */
export type RecordRefused =
  | CommandInvalid
  | CommandLimitExceeded
  | CommandNotUtf8
  | CommandIdReused
  | CommandExpired
  | CommandCrashLoop;

/** An event a handler produced broke its schema, so it was not published. A bug, not a retry. */
export class EventInvalid extends SigningBridgeError<{ type: string; fields: InvalidField[] }> {
  readonly code = 'SB_ERR_EVENT_INVALID';
  readonly retryable = false;
}

/** A handler threw instead of returning an outcome: a bug, so the command fails at once. */
export class HandlerThrew extends SigningBridgeError<{ type: string; step: string }> {
  readonly code = 'SB_ERR_HANDLER_THREW';
  readonly retryable = false;
}

/** Command topics and the ledger must have the same partition count (see docs/design.md). */
export class TopicsNotCoPartitioned extends SigningBridgeError<{
  partitions: Record<string, number>;
}> {
  readonly code = 'SB_ERR_KAFKA_TOPICS_NOT_COPARTITIONED';
  readonly retryable = false;
}

/**
 * A co-partitioned topic's partition count changed while the bridge ran: a bizId's commands and
 * its ledger entry may no longer be on one partition number, so no command partition is
 * consumed until the topics are grown together and the bridge restarted.
 */
export class TopicsRepartitioned extends SigningBridgeError<{
  /** Per topic whose count changed, the count at start and the count now. */
  changed: Record<string, { was: number; now: number }>;
}> {
  readonly code = 'SB_ERR_KAFKA_TOPICS_REPARTITIONED';
  readonly retryable = false;
}

/**
 * `signing-bridge topics grow` changed nothing: the bridge's group has members, records on the
 * partitions the bridge consumed are not committed yet (they could run behind newer records of
 * their bizIds on the new partitions), the count asked is below a topic's, or a topic is missing.
 */
export class TopicsGrowRefused extends SigningBridgeError<{
  reason: 'group-active' | 'lag' | 'smaller' | 'missing';
  groupId: string;
  /** Per co-partitioned topic, its partition count now. */
  partitions: Record<string, number>;
  /** `<topic>/<partition>` below the smallest count: records not committed yet, for `lag`. */
  lag?: Record<string, number>;
}> {
  readonly code = 'SB_ERR_KAFKA_TOPICS_GROW_REFUSED';
  readonly retryable = false;
}

/**
 * This instance no longer owns the partition of the command it was running (a rebalance or
 * shutdown): its writes are refused so the next owner alone carries on.
 */
export class PartitionReleased extends SigningBridgeError<{ partition: number }> {
  readonly code = 'SB_ERR_PARTITION_RELEASED';
  readonly retryable = false;
}

/**
 * The ledger topic refused a record for good (the bridge not authorised to write it, say) when a
 * partition was taken on. A bridge that cannot write its ledger must not run: start() rejects
 * with this, and a running bridge turns not ready.
 */
export class LedgerUnwritable extends SigningBridgeError<{ topic: string; partition: number }> {
  readonly code = 'SB_ERR_LEDGER_UNWRITABLE';
  readonly retryable = false;
}

/**
 * The bridge stopped before Kafka acknowledged these records: the shutdown deadline passed while
 * a send kept failing. They may or may not have been written; the command is left unfinished
 * and the next owner runs it again.
 */
export class OutboxClosed extends SigningBridgeError<{ records: number }> {
  readonly code = 'SB_ERR_OUTBOX_CLOSED';
  readonly retryable = false;
}

/** The simulator refused an admin request (unknown contract, not that signatory's turn, bad body). */
export class AdminRequestFailed extends SigningBridgeError<{
  method: string;
  path: string;
  httpStatus: number;
}> {
  readonly code = 'SB_ERR_SIMULATOR_ADMIN';
  readonly retryable = false;
}

/**
 * `signing-bridge simulator` cannot load a part of the simulator: the service image leaves the
 * simulator out, and `npm ci --omit=optional` its PDF reader (pdfjs-dist).
 */
export class SimulatorNotInstalled extends SigningBridgeError<{ missing: string }> {
  readonly code = 'SB_ERR_SIMULATOR_NOT_INSTALLED';
  readonly retryable = false;

  /** The error for a failed import when what it lacks is a module not installed here. */
  static fromImport(error: unknown): SimulatorNotInstalled | undefined {
    if ((error as { code?: unknown } | undefined)?.code !== 'ERR_MODULE_NOT_FOUND')
      return undefined;
    const missing =
      /Cannot find (?:package|module) '([^']+)'/.exec(String(error))?.[1] ?? 'a module';
    return new SimulatorNotInstalled(
      `The simulator is not installed here (${missing} is missing). It is for development and ` +
        "demos only, so the service image leaves it out: build the Dockerfile's `simulator` " +
        'target instead. In a clone, `npm ci` installs it with its optional dependency pdfjs-dist.',
      { details: { missing }, cause: error },
    );
  }
}

/**
 * Kafka did not take records the bridge wrote. Retryable unless the broker refused them for
 * good (too large, not authorised, invalid), which no retry changes.
 */
export class KafkaWriteFailed extends SigningBridgeError<{
  kafkaError: string;
  permanent: boolean;
}> {
  readonly code = 'SB_ERR_KAFKA_WRITE_FAILED';
  get retryable(): boolean {
    return !this.details.permanent;
  }
}

/** Why TLS or SASL refused the bridge; each names the settings that decide it. */
export type KafkaRefusalReason =
  | 'sasl-credentials'
  | 'sasl-mechanism'
  | 'tls-untrusted'
  | 'tls-host-name'
  | 'tls-client-certificate'
  | 'tls-not-offered';

/**
 * TLS or SASL refused the bridge when it first connected: the broker's certificate is not
 * trusted or not for that host, the broker refused the client certificate, the credentials are
 * wrong. No retry changes that, so start-up stops with the settings to correct in the message.
 */
export class KafkaAuthenticationFailed extends SigningBridgeError<{
  reason: KafkaRefusalReason;
  broker: string | undefined;
  settings: readonly string[];
  kafkaError: string;
}> {
  readonly code = 'SB_ERR_KAFKA_AUTH_FAILED';
  readonly retryable = false;
}

/** No broker answered the first connection, however many attempts the caller allowed. */
export class KafkaUnreachable extends SigningBridgeError<{
  brokers: readonly string[];
  attempts: number;
  kafkaError: string;
}> {
  readonly code = 'SB_ERR_KAFKA_UNREACHABLE';
  readonly retryable = true;
}

/**
 * Topics the bridge needs do not exist and it was told not to create them (TOPICS_CREATE=false):
 * create them (`signing-bridge topics create`) or let the bridge do it.
 */
export class TopicsMissing extends SigningBridgeError<{ topics: string[] }> {
  readonly code = 'SB_ERR_KAFKA_TOPICS_MISSING';
  readonly retryable = false;
}

/**
 * Topics just created were still not listed, with a leader for every partition, by every broker
 * of the cluster after about 30 s: the cluster is still electing, a broker is behind on the
 * cluster's metadata, or it is short of brokers for the replication factor.
 */
export class TopicsLeaderless extends SigningBridgeError<{ topics: string[] }> {
  readonly code = 'SB_ERR_KAFKA_TOPICS_LEADERLESS';
  readonly retryable = true;
}

/** The SDK refused to send a command that breaks its schema; nothing was sent. */
export class CommandRefused extends SigningBridgeError<{
  commandType: string;
  fields: InvalidField[];
  /** Its position in a sendMany() batch. */
  index?: number;
}> {
  readonly code = 'SB_ERR_SDK_COMMAND_INVALID';
  readonly retryable = false;
}

/** A record on the events topic is not an event of a type this SDK knows, in its schema. */
export class EventUndecodable extends SigningBridgeError<{
  topic: string;
  partition: number;
  offset: string;
  reason: 'not-cloudevent' | 'unknown-type' | 'not-json' | 'schema';
  ceType: string | undefined;
  fields: InvalidField[];
}> {
  readonly code = 'SB_ERR_SDK_EVENT_UNDECODABLE';
  readonly retryable = false;
}

/** No terminal event of the command arrived within the time given to wait for it. */
export class OutcomeWaitTimedOut extends SigningBridgeError<{
  bizId: string;
  commandId: string;
  timeoutMs: number;
}> {
  readonly code = 'SB_ERR_SDK_OUTCOME_TIMED_OUT';
  readonly retryable = true;
}

/**
 * The subscriber stopped (asked to, or its consumer failed for good) while something waited for
 * an outcome, or more waits were asked for than it holds at once.
 */
export class SubscriberUnavailable extends SigningBridgeError<{
  reason: 'stopped' | 'failed' | 'too-many-waits';
}> {
  readonly code = 'SB_ERR_SDK_SUBSCRIBER_UNAVAILABLE';
  readonly retryable = false;
}

/**
 * An operator command (`signing-bridge send`, `tail`, ...) was given something it cannot use:
 * an unknown option, a missing argument, a file that is not JSON. Nothing was done.
 */
export class OperatorInputInvalid extends SigningBridgeError<{ where: string }> {
  readonly code = 'SB_ERR_CLI_INPUT_INVALID';
  readonly retryable = false;
}
