import { afterEach, describe, expect, it, vi } from 'vitest';
import { KafkaWriteFailed } from '../errors.js';
import { Readiness } from './readiness.js';
import { RefusedWrites } from './refused-writes.js';

const PROBES = { initialDelayMs: 1_000, maxDelayMs: 4_000, multiplier: 2 };
const topics = { ledger: 'sb.ledger', events: 'sb.events', deadLetter: 'sb.dlq' };

function gate() {
  const readiness = new Readiness();
  const log = { error: vi.fn(), info: vi.fn() };
  const onChange = vi.fn();
  const refusals = new RefusedWrites({
    readiness,
    log: log as never,
    topics,
    probes: PROBES,
    onChange,
  });
  return { readiness, log, onChange, refusals };
}

const refusal = (kafkaError: string) =>
  new KafkaWriteFailed(`writing to Kafka failed: ${kafkaError}`, {
    details: { kafkaError, permanent: true },
  });
const notAuthorised = refusal('TOPIC_AUTHORIZATION_FAILED');

/** Waits in the gate as a command does; `woken` says whether it was let go. */
function waiter(refusals: RefusedWrites, ending: boolean) {
  const resume = vi.fn();
  const stop = refusals.whenMayPass(resume, ending);
  return { woken: () => resume.mock.calls.length > 0, stop };
}

describe('RefusedWrites', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('when open, then every run passes and nothing it writes changes anything', () => {
    const { refusals, readiness } = gate();
    const pass = refusals.tryPass(false);
    expect(pass?.held).toBeUndefined();
    pass?.written('ending');
    pass?.end();
    expect(refusals.holds).toBe(false);
    expect(readiness.reasons()).toEqual([]);
  });

  it('when a write is refused until fixed, then no run starts, runs already going may not record a step, kafka-refused names the topics, the code and what to check, logged once at error', () => {
    vi.useFakeTimers();
    const { refusals, readiness, log, onChange } = gate();
    const going = refusals.tryPass(false);
    const ending = refusals.tryPass(false);
    ending?.refused(notAuthorised, 'ending');
    expect(refusals.tryPass(false)).toBeUndefined();
    expect(refusals.tryPass(true)).toBeUndefined();
    expect(going?.held).toBe(notAuthorised);
    expect(readiness.reasons()).toEqual([
      expect.stringMatching(
        /^kafka-refused: sb\.events or sb\.ledger refused writes with TOPIC_AUTHORIZATION_FAILED; check the topic's ACLs/,
      ),
    ]);
    refusals.tryPass(true);
    going?.refused(notAuthorised, 'ending');
    expect(log.error).toHaveBeenCalledOnce();
    expect(log.error.mock.calls[0]?.[0]).toMatchObject({
      kafkaError: 'TOPIC_AUTHORIZATION_FAILED',
    });
    expect(onChange.mock.calls).toEqual([['TOPIC_AUTHORIZATION_FAILED']]);
  });

  it('when a step of the ledger alone goes through, then only the events topic stays suspected', () => {
    const { refusals, readiness } = gate();
    const [a, b] = [refusals.tryPass(false), refusals.tryPass(false)];
    a?.refused(notAuthorised, 'ending');
    b?.written('step');
    expect(refusals.holds).toBe(true);
    expect(readiness.reasons()).toEqual([
      expect.stringMatching(/^kafka-refused: sb\.events refused writes with/),
    ]);
  });

  it('when a probe is due, then a command whose ending waits goes first, alone; a fresh command waits while one does', async () => {
    vi.useFakeTimers();
    const { refusals } = gate();
    refusals.tryPass(false)?.refused(notAuthorised, 'ending');
    const fresh = waiter(refusals, false);
    const ended = waiter(refusals, true);
    await vi.advanceTimersByTimeAsync(PROBES.initialDelayMs);
    expect([fresh.woken(), ended.woken()]).toEqual([false, true]);
    expect(refusals.tryPass(false)).toBeUndefined();
    const probe = refusals.tryPass(true);
    expect(probe).toBeDefined();
    expect(probe?.held).toBeUndefined();
    expect(refusals.tryPass(true)).toBeUndefined();
  });

  it('when probes keep being refused, then each comes after a longer delay, up to the cap', async () => {
    vi.useFakeTimers();
    const { refusals } = gate();
    refusals.tryPass(false)?.refused(notAuthorised, 'ending');
    const delays: number[] = [];
    let since = Date.now();
    for (let probe = 0; probe < 4; probe++) {
      const next = waiter(refusals, true);
      while (!next.woken()) await vi.advanceTimersByTimeAsync(100);
      delays.push(Date.now() - since);
      since = Date.now();
      refusals.tryPass(true)?.refused(notAuthorised, 'ending');
    }
    // The first after the initial delay; each refused probe doubles the next, up to 4 s (ticks
    // already armed keep their delay once).
    expect(delays[0]).toBe(PROBES.initialDelayMs);
    expect(delays.at(-1)).toBe(PROBES.maxDelayMs);
    expect([...delays].sort((a, b) => a - b)).toEqual(delays);
  });

  it('when the probe writes what was refused, then the gate opens: every waiter goes, kafka-refused is released, logged once at info', async () => {
    vi.useFakeTimers();
    const { refusals, readiness, log, onChange } = gate();
    refusals.tryPass(false)?.refused(notAuthorised, 'ending');
    const waiting = [waiter(refusals, true), waiter(refusals, false), waiter(refusals, false)];
    await vi.advanceTimersByTimeAsync(PROBES.initialDelayMs);
    const probe = refusals.tryPass(true);
    probe?.written('ending');
    probe?.end();
    await vi.advanceTimersByTimeAsync(0);
    expect(waiting.map((w) => w.woken())).toEqual([true, true, true]);
    expect(readiness.reasons()).toEqual([]);
    expect(log.info).toHaveBeenCalledOnce();
    expect(onChange.mock.calls).toEqual([['TOPIC_AUTHORIZATION_FAILED'], [undefined]]);
    expect(refusals.tryPass(false)?.held).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('when a probe ends without a write that tells (a replay), then the next may probe at once', async () => {
    vi.useFakeTimers();
    const { refusals } = gate();
    refusals.tryPass(false)?.refused(refusal('INVALID_TIMESTAMP'), 'step');
    const [first, second] = [waiter(refusals, false), waiter(refusals, false)];
    await vi.advanceTimersByTimeAsync(PROBES.initialDelayMs);
    expect([first.woken(), second.woken()]).toEqual([true, false]);
    refusals.tryPass(false)?.end();
    await vi.advanceTimersByTimeAsync(0);
    expect(second.woken()).toBe(true);
  });

  it('when a waiter stops waiting (its partition released), then it is not woken, and a later tick lets another probe', async () => {
    vi.useFakeTimers();
    const { refusals } = gate();
    refusals.tryPass(false)?.refused(notAuthorised, 'ending');
    const gone = waiter(refusals, true);
    const other = waiter(refusals, false);
    gone.stop();
    await vi.advanceTimersByTimeAsync(PROBES.initialDelayMs);
    expect([gone.woken(), other.woken()]).toEqual([false, true]);
  });
});
