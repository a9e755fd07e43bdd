/**
 * The simulator-only admin API under /admin: read state and the call log, act for signatories,
 * change faults and seals at run time, reset. JSON in and out; no authentication (it is a test
 * double, bound to 127.0.0.1 by default). Errors answer `{ "error": message }` with 400/404/409.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { z } from 'zod';
import { readJson } from '../../schemas/platform/json-text.js';
import type { CallLog } from '../call-log.js';
import type { Clock } from '../clock.js';
import type { Directory } from '../directory.js';
import { FaultConfig, type FaultInjector } from '../faults/index.js';
import { SealStatus } from '../fixtures.js';
import { readBody, sendJson } from '../http-io.js';
import type { ContractStore } from '../state/store.js';
import { AdminError } from './admin-error.js';
import {
  approve,
  existing,
  expireNow,
  rejectAsSignatory,
  sign,
  Verdict,
} from './contract-actions.js';

export interface AdminDeps {
  readonly store: ContractStore;
  readonly directory: Directory;
  readonly clock: Clock;
  readonly calls: CallLog;
  readonly faults: FaultInjector;
  /** Back to the state at start: no contracts, no calls, fixture seals, the start faults. */
  readonly reset: () => void;
  readonly log: Logger | undefined;
}

interface AdminRequest {
  readonly params: string[];
  readonly query: URLSearchParams;
  readonly body: unknown;
}

interface Route {
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly pattern: RegExp;
  readonly handle: (request: AdminRequest, deps: AdminDeps) => unknown;
}

const TURN = /^\/admin\/contracts\/([^/]+)\/signatories\/([^/]+)/;
const turn = ({ params: [contractId = '', signatoryId = ''] }: AdminRequest) => ({
  contractId,
  signatoryId,
});

const ROUTES: readonly Route[] = [
  {
    method: 'GET',
    pattern: /^\/admin\/health$/,
    handle: (_, d) => ({ ok: true, contracts: d.store.size }),
  },
  {
    method: 'GET',
    pattern: /^\/admin\/contracts$/,
    handle: (r, d) => byBizId(d, r.query.get('bizId')),
  },
  {
    method: 'GET',
    pattern: /^\/admin\/contracts\/([^/]+)$/,
    handle: (r, d) => existing(d.store, r.params[0] ?? ''),
  },
  {
    method: 'POST',
    pattern: withTail(TURN, 'sign'),
    handle: (r, d) => sign(d.store, d.clock, turn(r)),
  },
  {
    method: 'POST',
    pattern: withTail(TURN, 'reject'),
    handle: (r, d) => rejectAsSignatory(d.store, d.clock, turn(r)),
  },
  {
    method: 'POST',
    pattern: withTail(TURN, 'approve'),
    handle: (r, d) => approve(d.store, d.clock, turn(r), parse(Verdict, r.body)),
  },
  {
    method: 'POST',
    pattern: /^\/admin\/contracts\/([^/]+)\/expire$/,
    handle: (r, d) => expireNow(d.store, d.clock, r.params[0] ?? ''),
  },
  {
    method: 'GET',
    pattern: /^\/admin\/calls$/,
    handle: (r, d) => d.calls.list(callFilter(r.query)),
  },
  { method: 'GET', pattern: /^\/admin\/faults$/, handle: (_, d) => d.faults.config },
  { method: 'PUT', pattern: /^\/admin\/faults$/, handle: (r, d) => setFaults(d, r.body) },
  { method: 'PUT', pattern: /^\/admin\/seals\/([^/]+)$/, handle: (r, d) => setSeal(d, r) },
  { method: 'POST', pattern: /^\/admin\/reset$/, handle: (_, d) => reset(d) },
];

export async function serveAdmin(
  req: IncomingMessage,
  res: ServerResponse,
  deps: AdminDeps,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://simulator');
  const route = ROUTES.find((r) => r.method === req.method && r.pattern.test(url.pathname));
  try {
    if (!route) throw new AdminError(404, `no admin endpoint ${req.method} ${url.pathname}`);
    const params = (route.pattern.exec(url.pathname) ?? []).slice(1).map(decodeURIComponent);
    const body = req.method === 'GET' ? undefined : await jsonBody(req);
    sendJson(res, 200, route.handle({ params, query: url.searchParams, body }, deps));
  } catch (error) {
    if (!(error instanceof AdminError)) deps.log?.error({ err: error }, 'admin request failed');
    const status = error instanceof AdminError ? error.status : 500;
    sendJson(res, status, { error: (error as Error).message });
  }
  deps.log?.info(
    { method: req.method, path: url.pathname, httpStatus: res.statusCode },
    'admin call',
  );
}

function reset(deps: AdminDeps) {
  deps.reset();
  return { ok: true };
}

function withTail(prefix: RegExp, action: string): RegExp {
  return new RegExp(`${prefix.source}/${action}$`);
}

function byBizId(deps: AdminDeps, bizId: string | null) {
  if (!bizId) throw new AdminError(400, 'pass ?bizId=… or use /admin/contracts/{contractId}');
  const contract = deps.store.byBizId(bizId);
  if (!contract) throw new AdminError(404, `no contract has bizId "${bizId}"`);
  return contract;
}

function callFilter(query: URLSearchParams) {
  const value = (name: string) => query.get(name) ?? undefined;
  return { operation: value('operation'), bizId: value('bizId'), contractId: value('contractId') };
}

function setFaults(deps: AdminDeps, body: unknown) {
  deps.faults.configure(parse(FaultConfig, body));
  return deps.faults.config;
}

function setSeal(deps: AdminDeps, { params: [sealId = ''], body }: AdminRequest) {
  const { status } = parse(z.object({ status: SealStatus }), body);
  if (!deps.directory.setSealStatus(sealId, status))
    throw new AdminError(404, `seal ${sealId} does not exist`);
  return deps.directory.seal(sealId);
}

function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw new AdminError(
    400,
    parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
  );
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const body = await readBody(req, 1_048_576);
  if (!body) throw new AdminError(400, 'the body exceeds 1 MiB');
  if (body.length === 0) return {};
  try {
    return readJson(body.toString('utf8'));
  } catch {
    throw new AdminError(400, 'the body is not valid JSON');
  }
}
