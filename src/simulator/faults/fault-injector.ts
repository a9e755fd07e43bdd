import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OperationName } from '../../schemas/platform/operations.js';
import { FaultConfig, type FaultKind } from './config.js';
import { FaultScript } from './fault-script.js';
import { sampleLatency } from './latency.js';
import { drawFault } from './random-fault.js';
import { RateLimiter } from './rate-limiter.js';
import {
  answerPlatformError,
  answerServiceUnavailable,
  hang,
  resetConnection,
  waitWhileConnected,
} from './responses.js';

/** 'unlisted-answer': handle it normally, then rename the answer's values (unlisted-values.ts). */
export type Interception = 'continue' | 'handled' | 'unlisted-answer';

/**
 * Decides, for every platform request before it is handled, whether it is throttled, delayed,
 * failed, hung or reset. Order: the rate limit first (a refused request uses no scripted fault),
 * then a scripted fault if one matches, else a random one; then the latency; then the fault.
 */
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

  /**
   * Called first for every platform request; 'continue' means handle it normally, 'handled'
   * that the response was answered, dropped or left hanging here (or the client went away
   * during the injected latency) and must not be touched, 'unlisted-answer' that it is handled
   * normally and answered with values the spec does not list.
   */
  async intercept(
    operation: OperationName,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<Interception> {
    if (this.#throttled(req, res)) return 'handled';
    const scripted = this.#script.take(operation);
    const fault: FaultKind | undefined = scripted
      ? scripted.kind
      : drawFault(this.#config.operations, operation, this.#random);
    const delayMs = sampleLatency(this.#config.latency, this.#random) + (scripted?.ms ?? 0);
    if (delayMs > 0 && !(await waitWhileConnected(delayMs, res))) return 'handled';
    return this.#act(fault, req, res);
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

  #act(fault: FaultKind | undefined, req: IncomingMessage, res: ServerResponse): Interception {
    switch (fault) {
      case undefined:
      case 'latency':
        return 'continue';
      case 'unlistedValues':
        return 'unlisted-answer';
      case 'hang':
        hang(req);
        return 'handled';
      case 'reset':
        resetConnection(req);
        return 'handled';
      case 'http503':
        answerServiceUnavailable(req, res);
        return 'handled';
      case 'code21990001':
        answerPlatformError(req, res, '21990001', 'internal error (injected by the simulator)');
        return 'handled';
    }
  }
}
