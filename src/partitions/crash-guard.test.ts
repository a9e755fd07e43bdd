import { describe, expect, it, vi } from 'vitest';
import { KafkaWriteFailed, OutboxClosed } from '../errors.js';
import type { OutboundRecord } from '../kafka/index.js';
import { type CarefulTurnVerdict, CrashGuard, SUSPECT_GRACE_MS } from './crash-guard.js';

const marker = { kind: 'acquired' as const, instance: 'me', nonce: 'n' };

/**
 * A guard over an outbox whose Kafka takes every write (or as `write` says); `live` is the group's
 * members as the guard asks for them (undefined: the group cannot be asked), `clock` its clock.
 */
function guard(write: (records: readonly OutboundRecord[]) => Promise<void> = async () => {}) {
  const written: OutboundRecord[] = [];
  const group: { live: ReadonlySet<string> | undefined } = { live: new Set(['me']) };
  const clock = { now: 0 };
  const onRefused = vi.fn();
  const onHeld = vi.fn();
  const outbox = {
    write: vi.fn(async (records: readonly OutboundRecord[]) => {
      await write(records);
      written.push(...records);
    }),
  };
  const crashGuard = new CrashGuard({
    partition: 3,
    ledgerTopic: 'ledger',
    marker,
    outbox: outbox as never,
    owner: { assertSendable() {} },
    maxDeaths: 2,
    onRefused,
    onHeld,
    liveInstances: async () => group.live,
    now: () => clock.now,
  });
  const values = () => written.map((r) => JSON.parse(String(r.value)));
  return { crashGuard, written, values, onRefused, onHeld, outbox, group, clock };
}

const at = (topic: string, offset: number) => ({ topic, offset: String(offset) });

describe('CrashGuard, in hand', () => {
  it('when records are taken, then the marker first says up to the high-water mark they may be in hand; more records below it need no new write', async () => {
    const { crashGuard, values, outbox } = guard();
    await expect(crashGuard.admit('cmd.a', '4', '10')).resolves.toBe(true);
    expect(values()).toEqual([{ ...marker, inHand: { 'cmd.a': '9' } }]);
    await crashGuard.admit('cmd.a', '9', '10');
    expect(outbox.write).toHaveBeenCalledOnce();
    await crashGuard.admit('cmd.b', '0', '1');
    expect(values().at(-1)).toEqual({ ...marker, inHand: { 'cmd.a': '9', 'cmd.b': '0' } });
  });

  it('when the ledger refuses the marker for what it is, then it says so and the records may not run', async () => {
    const refused = new KafkaWriteFailed('too large', {
      details: { kafkaError: 'MESSAGE_TOO_LARGE', permanent: true },
    });
    const { crashGuard, onRefused } = guard(() => Promise.reject(refused));
    await expect(crashGuard.admit('cmd.a', '0')).resolves.toBe(false);
    expect(onRefused).toHaveBeenCalledWith(refused);
  });

  it('when the ledger refuses the marker until someone acts (the clock), then it says so without failing, writes the marker as it stands again a second later, and the records run once it is taken', async () => {
    const refused = new KafkaWriteFailed('timestamp out of range', {
      details: { kafkaError: 'INVALID_TIMESTAMP', permanent: true },
    });
    const refusing = { now: true };
    const { crashGuard, values, onRefused, onHeld } = guard(async () => {
      if (refusing.now) throw refused;
    });
    const admitted = crashGuard.admit('cmd.a', '0');
    void crashGuard.admit('cmd.b', '3');
    await vi.waitFor(() => expect(onHeld).toHaveBeenCalledWith(refused));
    refusing.now = false;
    await expect(admitted).resolves.toBe(true);
    expect(onRefused).not.toHaveBeenCalled();
    expect(values().at(-1)).toEqual({ ...marker, inHand: { 'cmd.a': '0', 'cmd.b': '3' } });
  });

  it('when the outbox gave the marker up at shutdown, then the records may not run, and nothing is reported', async () => {
    const closed = new OutboxClosed('closed', { details: { records: 1 } });
    const { crashGuard, onRefused } = guard(() => Promise.reject(closed));
    await expect(crashGuard.admit('cmd.a', '0')).resolves.toBe(false);
    expect(onRefused).not.toHaveBeenCalled();
  });
});

describe('CrashGuard, recovering after a crash', () => {
  it('when a crashed holder had records in hand, then they run as usual and the marker says they are being recovered until the group committed past them', async () => {
    const { crashGuard, values } = guard();
    await crashGuard.takeOver(new Map([['cmd.a', 5n]]), [], undefined);
    expect(crashGuard.careful).toBe(false);
    expect(crashGuard.carefulTurn(at('cmd.a', 3))).toEqual({ go: 'as-usual' });
    expect(values().at(-1)).toMatchObject({ recovering: { 'cmd.a': '5' } });
    crashGuard.committed('cmd.a', 5n);
    expect(crashGuard.recovering).toBe(true);
    crashGuard.committed('cmd.a', 6n);
    expect(crashGuard.recovering).toBe(false);
    await vi.waitFor(() => expect(values().at(-1)).not.toHaveProperty('recovering'));
  });
});

/** A run's turn as the scheduler holds it: taken, or waiting until woken (counted in `woken`). */
function asked(crashGuard: CrashGuard, record: { topic: string; offset: string }) {
  const turn: CarefulTurnVerdict = crashGuard.carefulTurn(record);
  const state = { woken: 0, stop: () => {} };
  if (turn.go === 'wait') state.stop = turn.until(() => state.woken++);
  return { turn, state };
}

/** Lets the microtasks in which waiters are woken run. */
const wakeUps = () => new Promise<void>((resolve) => setImmediate(resolve));

const suspect = (deaths: number) => ({ instance: 'stalled', topic: 'cmd.a', offset: '4', deaths });

describe('CrashGuard, careful in a crash loop', () => {
  it('when the crashed holders died without recovering, then runs go as usual', () => {
    const { crashGuard } = guard();
    void crashGuard.takeOver(new Map([['cmd.a', 5n]]), [], undefined);
    expect(crashGuard.carefulTurn(at('cmd.a', 0))).toEqual({ go: 'as-usual' });
  });

  it('when a holder died recovering, then every run of the partition takes its one turn: the others wait holding nothing, never woken at once, and each turn that ends wakes the first of them', async () => {
    const { crashGuard } = guard();
    void crashGuard.takeOver(new Map([['cmd.a', 5n]]), ['stalled'], undefined);
    const first = asked(crashGuard, at('cmd.a', 0));
    expect(first.turn.go).toBe('alone');
    // Records past the crashed range and of other topics wait as well: nothing runs beside it.
    const waiting = [at('cmd.a', 1), at('cmd.b', 0), at('cmd.a', 9)].map((r) =>
      asked(crashGuard, r),
    );
    expect(waiting.map((w) => w.turn)).toEqual(
      waiting.map(() => ({
        go: 'wait',
        retryInMs: Number.POSITIVE_INFINITY,
        until: expect.any(Function),
      })),
    );
    await wakeUps();
    expect(waiting.map((w) => w.state.woken)).toEqual([0, 0, 0]);
    if (first.turn.go === 'alone') first.turn.end();
    expect(waiting[0]?.state.woken).toBe(0);
    await wakeUps();
    expect(waiting.map((w) => w.state.woken)).toEqual([1, 0, 0]);
    // Woken, it asks again and takes the turn; its end wakes the next.
    const again = asked(crashGuard, at('cmd.a', 1));
    expect(again.turn.go).toBe('alone');
    if (again.turn.go === 'alone') again.turn.end();
    await wakeUps();
    expect(waiting.map((w) => w.state.woken)).toEqual([1, 1, 0]);
  });

  it('when a run asks to wait a moment after the turn was free again (the scheduler holds it later), then it is woken all the same; one that stopped waiting is not, and the next is', async () => {
    const { crashGuard } = guard();
    void crashGuard.takeOver(new Map([['cmd.a', 5n]]), ['stalled'], undefined);
    const holder = crashGuard.carefulTurn(at('cmd.a', 0));
    const refused = crashGuard.carefulTurn(at('cmd.a', 1));
    const gone = asked(crashGuard, at('cmd.a', 2));
    if (holder.go === 'alone') holder.end();
    gone.state.stop();
    await wakeUps();
    let woken = 0;
    if (refused.go === 'wait') refused.until(() => woken++);
    expect(woken).toBe(0);
    await wakeUps();
    expect([woken, gone.state.woken]).toEqual([1, 0]);
  });

  it('when the group has committed past every crashed range, then care ends: every waiting run is woken at once and later ones go as usual', async () => {
    const { crashGuard } = guard();
    void crashGuard.takeOver(
      new Map([
        ['cmd.a', 5n],
        ['cmd.b', 2n],
      ]),
      ['stalled'],
      undefined,
    );
    asked(crashGuard, at('cmd.a', 0));
    const waiting = [at('cmd.a', 1), at('cmd.b', 0)].map((r) => asked(crashGuard, r));
    crashGuard.committed('cmd.a', 5n);
    crashGuard.committed('cmd.a', 6n);
    expect(crashGuard.careful).toBe(true);
    crashGuard.committed('cmd.b', 3n);
    expect(crashGuard.careful).toBe(false);
    await wakeUps();
    expect(waiting.map((w) => w.state.woken)).toEqual([1, 1]);
    expect(crashGuard.carefulTurn(at('cmd.a', 7))).toEqual({ go: 'as-usual' });
  });

  it('when every holder suspected of dying is in the group again (it stalled), then care ends at once, whatever is left of the ranges, and every waiting run goes', async () => {
    const { crashGuard } = guard();
    void crashGuard.takeOver(new Map([['cmd.a', 5n]]), ['stalled', 'other'], undefined);
    asked(crashGuard, at('cmd.a', 0));
    const waiting = asked(crashGuard, at('cmd.a', 1));
    expect(crashGuard.seen(new Set(['me', 'newcomer']))).toEqual([]);
    expect(crashGuard.seen(new Set(['me', 'stalled']))).toEqual(['stalled']);
    expect(crashGuard.careful).toBe(true);
    expect(crashGuard.seen(new Set(['me', 'stalled', 'other']))).toEqual(['other']);
    expect(crashGuard.careful).toBe(false);
    await wakeUps();
    expect(waiting.state.woken).toBe(1);
    expect(crashGuard.seen(new Set(['stalled']))).toEqual([]);
  });

  it('before a careful record runs, it writes which record runs alone, with no death yet', async () => {
    const { crashGuard, values } = guard();
    void crashGuard.takeOver(new Map([['cmd.a', 5n]]), ['stalled'], undefined);
    await expect(crashGuard.beforeCarefulRun(at('cmd.a', 4))).resolves.toBe('run');
    expect(values().at(-1)).toEqual({ instance: 'me', topic: 'cmd.a', offset: '4', deaths: 0 });
  });

  it('when care ended before the record ran, then it runs as usual and writes no careful-run record', async () => {
    const { crashGuard, values } = guard();
    void crashGuard.takeOver(new Map([['cmd.a', 5n]]), ['stalled'], undefined);
    crashGuard.seen(new Set(['stalled']));
    await expect(crashGuard.beforeCarefulRun(at('cmd.a', 4))).resolves.toBe('run');
    expect(values().some((v) => 'deaths' in v)).toBe(false);
  });

  it('when the crashed holder was running that very record alone, then it runs again at once with one death more', async () => {
    const { crashGuard, values } = guard();
    void crashGuard.takeOver(new Map([['cmd.a', 5n]]), ['stalled'], suspect(0));
    const turn = crashGuard.carefulTurn(at('cmd.a', 4));
    expect(turn.go).toBe('alone');
    await expect(crashGuard.beforeCarefulRun(at('cmd.a', 4))).resolves.toBe('run');
    expect(values().at(-1)).toMatchObject({ offset: '4', deaths: 1 });
    expect(crashGuard.carefulTurn(at('cmd.a', 3)).go).toBe('wait');
  });

  it('when running that record again would be its last death, then it waits for its holder to come back (others take the turn meanwhile) until SUSPECT_GRACE_MS after the take-over; still not in the group then, it is dead-lettered', async () => {
    const { crashGuard, values, group, clock } = guard();
    clock.now = 1_000;
    void crashGuard.takeOver(new Map([['cmd.a', 5n]]), ['stalled'], suspect(1));
    clock.now = 1_000 + SUSPECT_GRACE_MS - 4_000;
    const held = asked(crashGuard, at('cmd.a', 4));
    expect(held.turn).toEqual({ go: 'wait', retryInMs: 4_000, until: expect.any(Function) });
    const other = crashGuard.carefulTurn(at('cmd.a', 3));
    expect(other.go).toBe('alone');
    await wakeUps();
    expect(held.state.woken).toBe(0);
    clock.now = 1_000 + SUSPECT_GRACE_MS;
    group.live = new Set(['me', 'newcomer']);
    // Its wait is over; it waits for the turn like any run.
    expect(crashGuard.carefulTurn(at('cmd.a', 4)).go).toBe('wait');
    if (other.go === 'alone') other.end();
    expect(crashGuard.carefulTurn(at('cmd.a', 4)).go).toBe('alone');
    await expect(crashGuard.beforeCarefulRun(at('cmd.a', 4))).resolves.toBe('dead-letter');
    expect(values().filter((v) => v.offset === '4')).toEqual([]);
  });

  it('when the holder of that record comes back while it waits, then it is woken and runs alone as no death', async () => {
    const { crashGuard, values } = guard();
    void crashGuard.takeOver(new Map([['cmd.a', 5n]]), ['stalled', 'dead'], suspect(1));
    const held = asked(crashGuard, at('cmd.a', 4));
    expect(crashGuard.seen(new Set(['me', 'stalled']))).toEqual(['stalled']);
    await wakeUps();
    expect(held.state.woken).toBe(1);
    // Still careful ('dead' is not back): it runs alone, its deaths as they were.
    expect(crashGuard.carefulTurn(at('cmd.a', 4)).go).toBe('alone');
    await expect(crashGuard.beforeCarefulRun(at('cmd.a', 4))).resolves.toBe('run');
    expect(values().at(-1)).toMatchObject({ offset: '4', deaths: 1 });
  });

  it('when its holder is in the group at the last moment, or the group cannot be asked, then the record is not dead-lettered: it runs, its deaths as they were', async () => {
    for (const live of [new Set(['me', 'stalled']), undefined]) {
      const { crashGuard, values, group, clock } = guard();
      void crashGuard.takeOver(new Map([['cmd.a', 5n]]), ['stalled'], suspect(1));
      clock.now = SUSPECT_GRACE_MS;
      group.live = live;
      await expect(crashGuard.beforeCarefulRun(at('cmd.a', 4))).resolves.toBe('run');
      expect(values().at(-1)).toMatchObject({ offset: '4', deaths: 1 });
    }
  });
});
