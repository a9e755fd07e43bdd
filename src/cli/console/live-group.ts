/**
 * The group page kept live: while anyone watches, the group is read every CONSOLE_REFRESH and
 * the page's fragment sent to every watcher as a server-sent event; one reading serves them all,
 * and none is made while nobody watches. At most WATCHERS_MAX streams are open at once.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Html } from './html.js';
import { startEvents } from './http-io.js';

export const WATCHERS_MAX = 32;
/** A comment now and then keeps proxies from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;

export class LiveGroup {
  readonly #watchers = new Set<ServerResponse>();
  readonly #render: () => Promise<Html>;
  readonly #intervalMs: number;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | undefined;
  #keepAlive: NodeJS.Timeout | undefined;
  #reading = false;

  constructor(render: () => Promise<Html>, intervalMs: number, log: Logger) {
    this.#render = render;
    this.#intervalMs = intervalMs;
    this.#log = log;
  }

  /** False when there are WATCHERS_MAX watchers already. */
  watch(res: ServerResponse): boolean {
    if (this.#watchers.size >= WATCHERS_MAX) return false;
    startEvents(res);
    res.write(`retry: ${this.#intervalMs}\n\n`);
    this.#watchers.add(res);
    res.on('close', () => {
      this.#watchers.delete(res);
      if (this.#watchers.size === 0) this.#stopTimers();
    });
    if (!this.#timer) {
      this.#timer = setInterval(() => void this.#tick(), this.#intervalMs);
      this.#keepAlive = setInterval(() => this.#broadcast(': keep-alive\n\n'), KEEP_ALIVE_MS);
    }
    void this.#tick();
    return true;
  }

  close(): void {
    this.#stopTimers();
    for (const res of this.#watchers) res.end();
    this.#watchers.clear();
  }

  async #tick(): Promise<void> {
    if (this.#reading) return;
    this.#reading = true;
    try {
      const fragment = (await this.#render()).text;
      const data = fragment
        .split('\n')
        .map((line) => `data: ${line}`)
        .join('\n');
      this.#broadcast(`event: group\n${data}\n\n`);
    } catch (error) {
      this.#log.warn({ err: error }, 'console: reading the group failed');
    } finally {
      this.#reading = false;
    }
  }

  #broadcast(text: string): void {
    for (const res of this.#watchers) res.write(text);
  }

  #stopTimers(): void {
    clearInterval(this.#timer);
    clearInterval(this.#keepAlive);
    this.#timer = undefined;
    this.#keepAlive = undefined;
  }
}
