/**
 * The one way a test waits for a fact that no event announces (a metric, a call in the
 * simulator's log, a committed offset, a line of output): `observe` is polled until `until` holds
 * of what it returned. Timing out, the error names what was awaited and what was last observed,
 * so a failure says what the test saw rather than only that time ran out. A test never sleeps and
 * then checks; where an event says it (EventCollector, CliRun.waitFor), it waits for the event.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';

export interface WaitOptions<T> {
  /** What is awaited, for the error: "the replays skipped", "offsets committed". */
  readonly what: string;
  /** Whether what `observe` returned is the fact; without it, whether it is truthy. */
  readonly until?: (value: T) => boolean;
  readonly timeoutMs?: number;
  /** Between observations: longer where one costs a request to the broker. */
  readonly intervalMs?: number;
}

/** An error `observe` throws counts as one more observation: the wait goes on (a server starting). */
type Observed<T> = { readonly value: T } | { readonly error: unknown };

/** Resolves with the first value observed that the fact holds of. */
export async function waitUntil<T>(
  observe: () => T | Promise<T>,
  options: WaitOptions<T>,
): Promise<T> {
  const { what, until = Boolean, timeoutMs = 30_000, intervalMs = 50 } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const observed = await observation(observe);
    if ('value' in observed && until(observed.value)) return observed.value;
    if (performance.now() >= deadline) {
      const cause = 'error' in observed ? observed.error : undefined;
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}; last observed: ${shown(observed)}`,
        { cause },
      );
    }
    await sleep(intervalMs);
  }
}

/** Until the clock has passed `time` (ISO 8601): what is written from then on is later than it. */
export async function clockPast(time: string): Promise<void> {
  const at = Date.parse(time);
  await waitUntil(() => Date.now(), { until: (now) => now > at, what: `the clock past ${time}` });
}

async function observation<T>(observe: () => T | Promise<T>): Promise<Observed<T>> {
  try {
    return { value: await observe() };
  } catch (error) {
    return { error };
  }
}

/** Long enough for a log's last lines or a list of calls, short enough to read. */
const MAX_SHOWN = 4_000;

function shown(observed: Observed<unknown>): string {
  const text =
    'value' in observed
      ? inspect(observed.value, {
          depth: 4,
          maxArrayLength: 30,
          breakLength: Number.POSITIVE_INFINITY,
        })
      : `an error: ${observed.error instanceof Error ? observed.error.message : String(observed.error)}`;
  return text.length > MAX_SHOWN ? `…${text.slice(-MAX_SHOWN)}` : text;
}
