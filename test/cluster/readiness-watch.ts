/**
 * /readyz asked over and over while the cluster changes under the bridge, and what its answers
 * must be to be truthful. While every node runs and every partition is in sync, the bridge can
 * work, so it must answer 200. A change runs from the moment a node is stopped or killed until
 * the cluster is in sync again and the bridge answers 200 once more; only within one may it
 * answer 503, naming why (its lease, no word from the group, a cause it holds), and it must be
 * ready again within a bound after the cluster is. It answers every time, and 200 at the end.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { waitUntil } from '../support/wait.js';

const ASK_EVERY_MS = 250;
const ANSWER_WITHIN_MS = 2_000;

export interface ReadyAnswer {
  /** When it was asked (Date.now(), as Kafka's record times). */
  readonly askedAt: number;
  /** The HTTP status; 0 when nothing answered (refused, or not within 2 s). */
  readonly status: number;
  /** The reasons a 503 gives, one a line. */
  readonly reasons: readonly string[];
}

export interface Change {
  readonly label: string;
  /** When the node was stopped or killed. */
  readonly from: number;
  /** When the cluster was back in sync. */
  inSyncAt?: number;
  /** When the first 200 after that was asked: the change ends there. */
  readyAt?: number;
}

export class ReadinessWatch {
  readonly answers: ReadyAnswer[] = [];
  readonly changes: Change[] = [];
  readonly since = Date.now();
  readonly #url: string;
  #asking = true;
  readonly #loop: Promise<void>;

  private constructor(url: string) {
    this.#url = url;
    this.#loop = this.#askAll();
  }

  /** Asks `<base>/readyz` every 250 ms from now on. */
  static start(base: string): ReadinessWatch {
    return new ReadinessWatch(`${base}/readyz`);
  }

  /**
   * Runs one change of the cluster: `act` stops or kills a node and resolves once the cluster is
   * in sync again; then waits up to `readyWithinMs` for the bridge to answer 200. Returns a
   * problem when it did not.
   */
  async change(
    label: string,
    act: () => Promise<void>,
    readyWithinMs: number,
  ): Promise<string | undefined> {
    const change: Change = { label, from: Date.now() };
    this.changes.push(change);
    await act();
    const inSyncAt = Date.now();
    change.inSyncAt = inSyncAt;
    try {
      const ready = await waitUntil(
        () => this.answers.find((a) => a.askedAt >= inSyncAt && a.status === 200),
        { what: `/readyz 200 after ${label}`, timeoutMs: readyWithinMs, intervalMs: 100 },
      );
      change.readyAt = ready?.askedAt;
      return undefined;
    } catch {
      return `${label}: /readyz not 200 within ${readyWithinMs / 1000} s after the cluster was in sync again`;
    }
  }

  /** Stops asking, once one more answer came (the last one counts: it must be 200). */
  async stop(): Promise<void> {
    if (!this.#asking) return;
    const count = this.answers.length;
    await waitUntil(() => this.answers.length > count, { what: 'one more /readyz answer' });
    this.#asking = false;
    await this.#loop;
  }

  /** Every answer that was not truthful, and every change after which it was not ready again. */
  problems(): string[] {
    const problems: string[] = [];
    for (const answer of this.answers) {
      const at = `at +${this.seconds(answer.askedAt)} s`;
      if (answer.status === 0) problems.push(`no answer ${at}`);
      if (answer.status !== 503) continue;
      if (answer.reasons.length === 0) problems.push(`503 naming no reason ${at}`);
      if (answer.reasons.some((r) => r.startsWith('starting or stopped')))
        problems.push(`503 "starting or stopped" ${at}, while it ran`);
      if (this.changeAt(answer.askedAt) === undefined)
        problems.push(
          `503 ${at} while every node ran and every partition was in sync: ${answer.reasons.join('; ')}`,
        );
    }
    const last = this.answers.at(-1);
    if (last?.status !== 200) problems.push(`the last answer was ${last?.status ?? 'none'}`);
    return problems;
  }

  /**
   * Per change: when it began, when the cluster was in sync again, when the bridge was ready
   * again (seconds since the watch started); how many answers were 503 of how many, over how
   * long, and the reasons they gave.
   */
  summary(): string {
    return this.changes
      .map((change) => {
        const during = this.answers.filter((a) => this.changeAt(a.askedAt) === change);
        const refusals = during.filter((a) => a.status === 503);
        const causes = new Set(refusals.flatMap((a) => a.reasons.map((r) => r.slice(0, 90))));
        const named = causes.size > 0 ? ` (${[...causes].join(', ')})` : '';
        const span = (refusals.at(-1)?.askedAt ?? 0) - (refusals[0]?.askedAt ?? 0);
        return (
          `${change.label} at +${this.seconds(change.from)} s, in sync +${this.seconds(change.inSyncAt)} s, ` +
          `ready +${this.seconds(change.readyAt)} s: ${refusals.length} of ${during.length} answers 503 ` +
          `over ${(span / 1000).toFixed(1)} s${named}`
        );
      })
      .join('; ');
  }

  /** The change under way at `at` (Date.now()), from its start until the bridge was ready again. */
  changeAt(at: number): Change | undefined {
    return this.changes.find((c) => at >= c.from && at < (c.readyAt ?? Number.POSITIVE_INFINITY));
  }

  /** `at` (Date.now()) in seconds since the watch started. */
  seconds(at: number | undefined): string {
    return at === undefined ? '?' : ((at - this.since) / 1000).toFixed(1);
  }

  async #askAll(): Promise<void> {
    while (this.#asking) {
      this.answers.push(await this.#ask());
      await sleep(ASK_EVERY_MS);
    }
  }

  async #ask(): Promise<ReadyAnswer> {
    const askedAt = Date.now();
    try {
      const response = await fetch(this.#url, { signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
      const body = await response.text();
      const reasons = body
        .split('\n')
        .filter((line) => line.startsWith('- '))
        .map((line) => line.slice(2));
      return { askedAt, status: response.status, reasons };
    } catch {
      return { askedAt, status: 0, reasons: [] };
    }
  }
}
