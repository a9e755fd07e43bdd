import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OperationName } from '../../schemas/platform/operations.js';
import type { Delivery } from './answer-writers.js';
import { FaultConfig, type FaultKind, HUGE_DEFAULT_BYTES, type ScriptedFault } from './config.js';
import { FaultScript } from './fault-script.js';
import { sampleLatency } from './latency.js';
import { drawFault, type RandomFault } from './random-fault.js';
import { RateLimiter } from './rate-limiter.js';
import {
  answerMaintenance,
  answerPlatformError,
  answerServiceUnavailable,
  hang,
  resetConnection,
  waitWhileConnected,
} from './responses.js';

/** The fault that acted on a call: a fault kind, or the requests-per-second limit's 429. */
export type CallFault = FaultKind | 'rateLimit';

/** What to do with a platform request, decided before it is handled. */
export type Interception =
  /**
   * The request was answered, cut or left hanging here, or its client went away during the
   * injected delay: the operation does not run and the response must not be touched.
   */
  | { readonly outcome: 'handled'; readonly fault: CallFault }
  /**
   * Run the operation, then send its answer as `delivery` says; `fault` names the fault that
   * let it run and acts on its answer (`unlistedValues` renames values, then delivers normally).
   */
  | { readonly outcome: 'continue'; readonly fault?: FaultKind; readonly delivery: Delivery };

const NORMAL: Delivery = { kind: 'normal' };
const UNTOUCHED: Interception = { outcome: 'continue', delivery: NORMAL };

/** A fault to act on one call: a scripted entry, or a random draw (which has no parameters). */
type ActiveFault = ScriptedFault | { readonly kind: RandomFault };

/** `ms` of these is theirs to use after the operation ran, not a delay before it. */
const OWN_MS: ReadonlySet<FaultKind> = new Set(['late', 'drip']);

export class FaultInjector {
  readonly #random: () => number;
  readonly #now: () => number;
  #config: FaultConfig = {};
  #script = new FaultScript();
  #limiter: RateLimiter | undefined;

  constructor(config: FaultConfig = {}, random = Math.random, now = () => performance.now()) {
    this.#random = random;
    this.#now = now;
    this.configure(config);
  }

  /** Replaces the whole config: the script starts over and the rate limit's bucket is full. */
  configure(config: FaultConfig): void {
    this.#config = FaultConfig.parse(config);
    this.#script = new FaultScript(this.#config.script);
    const rate = this.#config.requestsPerSecond;
    this.#limiter = rate === undefined ? undefined : new RateLimiter(rate);
  }

  /** The config in force, with the script reduced to the uses it has left. */
  get config(): FaultConfig {
    const config = structuredClone(this.#config);
    return config.script === undefined ? config : { ...config, script: this.#script.remaining };
  }

  /** Called first for every platform request; see Interception. */
  async intercept(
    operation: OperationName,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<Interception> {
    if (this.#throttled(req, res)) return { outcome: 'handled', fault: 'rateLimit' };
    const fault: ActiveFault | undefined = this.#script.take(operation) ?? this.#draw(operation);
    const delayMs = sampleLatency(this.#config.latency, this.#random) + delayOf(fault);
    if (delayMs > 0 && !(await waitWhileConnected(delayMs, res))) {
      return { outcome: 'handled', fault: fault?.kind ?? 'latency' };
    }
    return fault === undefined ? UNTOUCHED : this.#act(fault, req, res);
  }

  #draw(operation: OperationName): ActiveFault | undefined {
    const kind = drawFault(this.#config.operations, operation, this.#random);
    return kind === undefined ? undefined : { kind };
  }

  #throttled(req: IncomingMessage, res: ServerResponse): boolean {
    const admission = this.#limiter?.admit(this.#now());
    if (admission === undefined || admission.admitted) return false;
    const retryAfter = String(Math.max(1, Math.ceil(admission.retryAfterMs / 1000)));
    const limit = this.#config.requestsPerSecond;
    answerPlatformError(req, res, '429', `too many requests: the limit is ${limit} per second`, {
      'retry-after': retryAfter,
    });
    return true;
  }

  #act(fault: ActiveFault, req: IncomingMessage, res: ServerResponse): Interception {
    const handled = { outcome: 'handled', fault: fault.kind } as const;
    switch (fault.kind) {
      case 'latency':
      case 'unlistedValues':
        return { outcome: 'continue', fault: fault.kind, delivery: NORMAL };
      case 'late':
      case 'drip': {
        const delivery = { kind: fault.kind, ms: fault.ms };
        return { outcome: 'continue', fault: fault.kind, delivery };
      }
      case 'resetAfterApply':
      case 'garbage':
        return { outcome: 'continue', fault: fault.kind, delivery: { kind: fault.kind } };
      case 'huge':
        return {
          outcome: 'continue',
          fault: fault.kind,
          delivery: { kind: 'huge', bytes: fault.bytes ?? HUGE_DEFAULT_BYTES },
        };
      case 'hang':
        hang(req);
        return handled;
      case 'reset':
        resetConnection(req);
        return handled;
      case 'http503':
        answerServiceUnavailable(req, res);
        return handled;
      case 'code21990001':
        answerPlatformError(req, res, '21990001', 'internal error (injected by the simulator)');
        return handled;
      case 'maintenance':
        answerMaintenance(req, res, fault.status ?? 200);
        return handled;
    }
  }
}

/** The delay a fault adds before it acts (late and drip use their `ms` afterwards). */
function delayOf(fault: ActiveFault | undefined): number {
  if (fault === undefined || !('ms' in fault) || OWN_MS.has(fault.kind)) return 0;
  return fault.ms ?? 0;
}
