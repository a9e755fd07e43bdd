/**
 * The terminal events of commands that ended without the platform doing what they asked. Each
 * has its own step in ce_id (`<bizId>/<commandId>/failed@<record>`, ...): a record ends once, so
 * that is unique.
 */
import { PlatformRejected, type SigningBridgeError } from '../errors.js';
import { maskPersonalData } from '../personal-data.js';
import type {
  CommandType,
  ErrorInfo,
  EventData,
  PendingEvent,
  RecordPosition,
} from '../schemas/messages/index.js';
import { excerpt, ID_EXCERPT_MAX_CHARS, MESSAGE_EXCERPT_MAX_CHARS } from './excerpt.js';

/** Fields named in an event's error; the rest are counted in `fieldsOmitted`. */
export const MAX_ERROR_FIELDS = 20;

export interface CommandRef {
  readonly commandId: string;
  readonly bizId: string;
  readonly commandType: CommandType;
  readonly contractId?: string | undefined;
}

/** Where a command record is (where its producer wrote it). */
export type RecordSource = RecordPosition;

/** Messages quote what the platform refused, personal data included: they go out masked. */
export function errorInfo(error: SigningBridgeError<object>): ErrorInfo {
  const info: ErrorInfo = {
    code: error.code,
    name: error.name,
    message: excerpt(maskPersonalData(error.message), MESSAGE_EXCERPT_MAX_CHARS),
    retryable: error.retryable,
  };
  if (error instanceof PlatformRejected) {
    info.platformCode = error.details.platformCode;
    if (error.details.platformName !== undefined) info.platformName = error.details.platformName;
  }
  const { fields, fieldsOmitted = 0 } = error.details as {
    fields?: ErrorInfo['fields'];
    fieldsOmitted?: number;
  };
  if (Array.isArray(fields)) {
    info.fields = fields.slice(0, MAX_ERROR_FIELDS).map(({ path, rule }) => ({
      path: excerpt(path, ID_EXCERPT_MAX_CHARS),
      rule: excerpt(maskPersonalData(rule), ID_EXCERPT_MAX_CHARS),
    }));
    const omitted = fieldsOmitted + fields.length - info.fields.length;
    if (omitted > 0) info.fieldsOmitted = omitted;
  }
  return info;
}

/** `final`: the platform's verdict, so the same commandId sent again is a duplicate. */
export function failedEvent(
  ref: CommandRef,
  step: string,
  error: SigningBridgeError<object>,
  final: boolean,
): PendingEvent<'signingbridge.command.failed'> {
  return {
    type: 'signingbridge.command.failed',
    step: 'failed',
    data: { ...ref, step, final, error: errorInfo(error) },
  };
}

export function gaveUpEvent(
  ref: CommandRef,
  step: string,
  attempts: number,
  error: SigningBridgeError<object>,
): PendingEvent<'signingbridge.command.gave-up'> {
  return {
    type: 'signingbridge.command.gave-up',
    step: 'gave-up',
    data: { ...ref, step, final: false, attempts, error: errorInfo(error) },
  };
}

export function preconditionTimedOutEvent(
  ref: CommandRef,
  step: string,
  waitedMs: number,
  error: SigningBridgeError<object>,
): PendingEvent<'signingbridge.command.precondition-timed-out'> {
  return {
    type: 'signingbridge.command.precondition-timed-out',
    step: 'precondition-timed-out',
    data: { ...ref, step, final: false, waitedMs: Math.round(waitedMs), error: errorInfo(error) },
  };
}

/**
 * For a record that could not be read, commandId and bizId are whatever could be made out, as
 * bounded excerpts: a broken record's are of any length.
 */
export function rejectedEvent(
  ref: Partial<Pick<CommandRef, 'commandId' | 'bizId'>> & Pick<CommandRef, 'commandType'>,
  error: SigningBridgeError<object>,
  source: RecordSource,
): PendingEvent<'signingbridge.command.rejected'> {
  const data: EventData<'signingbridge.command.rejected'> = {
    commandType: ref.commandType,
    final: false,
    error: errorInfo(error),
    source,
  };
  if (ref.commandId !== undefined) data.commandId = excerpt(ref.commandId, ID_EXCERPT_MAX_CHARS);
  if (ref.bizId !== undefined) data.bizId = excerpt(ref.bizId, ID_EXCERPT_MAX_CHARS);
  return { type: 'signingbridge.command.rejected', step: 'rejected', data };
}
