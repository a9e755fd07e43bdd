/**
 * The platform's seven operations, routed by the OPERATIONS table. Each request passes the
 * fault injector, the authentication check, body decoding and the shared zod request schema,
 * then its handler; the answer is the operation's envelope, or `errorBody(code)` with the HTTP
 * status of the code table. Every call is logged (one line) and kept in the call log.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { platformCode } from '../schemas/platform/codes.js';
import { errorBody, type ResponseBody, successBody } from '../schemas/platform/envelopes.js';
import { OPERATIONS, type OperationName } from '../schemas/platform/operations.js';
import { LIMITS } from '../schemas/platform/primitives.js';
import { longIdPaths } from '../schemas/platform/schema-paths.js';
import type { Authenticator } from './auth.js';
import type { CallLog, CallRecord } from './call-log.js';
import {
  deliver,
  type FaultInjector,
  type Interception,
  withUnlistedValues,
} from './faults/index.js';
import { jsonText } from './http-io.js';
import type {
  OperationContext,
  OperationHandler,
  OperationHandlers,
  OperationInput,
} from './operations/context.js';
import { PlatformRefusal } from './refusal.js';
import { decodeBody, parseRequest, type RequestLimits, refsOf } from './request-decoding.js';

export interface PlatformDeps {
  readonly context: OperationContext;
  readonly handlers: OperationHandlers;
  readonly auth: Authenticator;
  readonly faults: FaultInjector;
  readonly calls: CallLog;
  readonly limits: RequestLimits;
  readonly log: Logger | undefined;
}

const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];
const ROUTES: ReadonlyMap<string, OperationName> = new Map(
  OPERATION_NAMES.map((name) => [OPERATIONS[name].path, name]),
);
/** Where each operation's answer holds Longs: written as bare numbers, as the platform does. */
const ANSWER_LONG_PATHS: ReadonlyMap<OperationName, ReadonlySet<string>> = new Map(
  OPERATION_NAMES.map((name) => [name, longIdPaths(OPERATIONS[name].result, 'result')]),
);

export function operationAt(path: string): OperationName | undefined {
  return ROUTES.get(path);
}

interface Reply {
  readonly status: number;
  readonly body: ResponseBody;
  readonly bizId?: string | undefined;
  readonly contractId?: string | undefined;
  readonly signatoryId?: string | undefined;
}

export async function servePlatform(
  operation: OperationName,
  req: IncomingMessage,
  res: ServerResponse,
  deps: PlatformDeps,
): Promise<void> {
  const started = performance.now();
  const received = new Date().toISOString();
  const interception = await deps.faults.intercept(operation, req, res);
  const outcome =
    interception.outcome === 'handled'
      ? { httpStatus: sentStatus(res), ok: false, applied: false, fault: interception.fault }
      : await runAndAnswer(operation, interception, req, res, deps);
  report(deps, started, { received, operation, ...outcome });
}

type Outcome = Omit<CallRecord, 'time' | 'received' | 'operation'>;

/** Runs the operation, then sends its answer as the fault (if any) says; what the log keeps. */
async function runAndAnswer(
  operation: OperationName,
  { fault, delivery }: Interception & { outcome: 'continue' },
  req: IncomingMessage,
  res: ServerResponse,
  deps: PlatformDeps,
): Promise<Outcome> {
  const reply = await answer(operation, req, deps);
  const body = fault === 'unlistedValues' ? withUnlistedValues(operation, reply.body) : reply.body;
  const text = jsonText(body, ANSWER_LONG_PATHS.get(operation));
  const delivered = await deliver(delivery, req, res, { status: reply.status, text });
  // Unpadded, as the code table keys it: `1101`, `11990005`; `0` or `00000000` on success.
  const code = reply.body.code === undefined ? reply.body.responseCode : String(reply.body.code);
  return {
    bizId: reply.bizId,
    contractId: reply.contractId,
    signatoryId: reply.signatoryId,
    httpStatus: sentStatus(res),
    code,
    ok: delivered && reply.status === 200 && (code === '0' || code === '00000000'),
    applied: true,
    fault,
  };
}

/** The status the client was sent; 0 when not even a head went out (a reset, a hang). */
function sentStatus(res: ServerResponse): number {
  return res.headersSent ? res.statusCode : 0;
}

/** One entry in the call log and one log line per call. */
function report(deps: PlatformDeps, started: number, call: Omit<CallRecord, 'time'>): void {
  deps.calls.record({ time: new Date().toISOString(), ...call });
  deps.log?.info({ ...call, ms: elapsed(started) }, 'platform call');
}

async function answer(
  operation: OperationName,
  req: IncomingMessage,
  deps: PlatformDeps,
): Promise<Reply> {
  const auth = deps.auth.check(req.headers);
  if (!auth.ok) {
    req.resume();
    return failure(auth.code, auth.message);
  }
  let refs: Refs = {};
  try {
    const decoded = await decodeBody(operation, req, deps.limits);
    refs = refsOf(decoded.fields);
    const { result, contract } = await handle(operation, parseRequest(operation, decoded), deps);
    const body = successBody(OPERATIONS[operation].envelope, result);
    return {
      status: 200,
      body,
      bizId: contract?.bizId ?? refs.bizId,
      contractId: contract?.id ?? refs.contractId,
      signatoryId: refs.signatoryId,
    };
  } catch (error) {
    if (error instanceof PlatformRefusal) return failure(error.code, error.message, refs);
    deps.log?.error({ err: error, operation }, 'operation failed unexpectedly');
    return failure('21990001', 'internal error of the simulator', refs);
  }
}

/** The request was parsed by this operation's own schema, so it is this handler's input. */
function handle<Op extends OperationName>(operation: Op, request: unknown, deps: PlatformDeps) {
  const handler: OperationHandler<Op> = deps.handlers[operation];
  return handler(request as OperationInput<Op>, deps.context);
}

interface Refs {
  readonly bizId?: string | undefined;
  readonly contractId?: string | undefined;
  readonly signatoryId?: string | undefined;
}

function failure(code: string, message: string, refs: Refs = {}): Reply {
  const status = platformCode(code).httpStatus ?? 200;
  return { status, body: errorBody(code, message.slice(0, LIMITS.messageMaxLength)), ...refs };
}

function elapsed(since: number): number {
  return Math.round((performance.now() - since) * 10) / 10;
}
