import { describe, expect, it, vi } from 'vitest';
import { KafkaWriteFailed, OutboxClosed } from '../errors.js';
import type { OutboundRecord } from '../kafka/index.js';
import { CAREFUL_SCHEDULING_KEY, CrashGuard } from './crash-guard.js';

const marker = { kind: 'acquired' as const, instance: 'me', nonce: 'n' };

function guard(write: (records: readonly OutboundRecord[]) => Promise<void> = async () => {}) {
  const written: OutboundRecord[] = [];
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
  });
  const values = () => written.map((r) => JSON.parse(String(r.value)));
  return { crashGuard, written, values, onRefused, onHeld, outbox };
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
    await crashGuard.takeOver(new Map([['cmd.a', 5n]]), false, undefined);
    expect(crashGuard.careful).toBe(false);
    expect(crashGuard.schedulingKey(at('cmd.a', 3))).toBeUndefined();
    expect(values().at(-1)).toMatchObject({ recovering: { 'cmd.a': '5' } });
    crashGuard.committed('cmd.a', 5n);
    expect(crashGuard.recovering).toBe(true);
    crashGuard.committed('cmd.a', 6n);
    expect(crashGuard.recovering).toBe(false);
    await vi.waitFor(() => expect(values().at(-1)).not.toHaveProperty('recovering'));
  });
});

describe('CrashGuard, careful in a crash loop', () => {
  it('when not careful, then records keep their own scheduling key', () => {
    expect(guard().crashGuard.schedulingKey(at('cmd.a', 0))).toBeUndefined();
  });

  it('when a crashed holder had records in hand, then they share one scheduling key, and so do later records, until the range is passed and every careful one ended', () => {
    const { crashGuard } = guard();
    void crashGuard.takeOver(new Map([['cmd.a', 5n]]), true, undefined);
    expect(crashGuard.schedulingKey(at('cmd.a', 4))).toBe(CAREFUL_SCHEDULING_KEY);
    expect(crashGuard.schedulingKey(at('cmd.b', 0))).toBe(CAREFUL_SCHEDULING_KEY);
    expect(crashGuard.schedulingKey(at('cmd.a', 5))).toBe(CAREFUL_SCHEDULING_KEY);
    crashGuard.carefulEnded();
    crashGuard.carefulEnded();
    expect(crashGuard.careful).toBe(true);
    crashGuard.carefulEnded();
    expect(crashGuard.careful).toBe(false);
    expect(crashGuard.schedulingKey(at('cmd.a', 6))).toBeUndefined();
  });

  it('when the group had committed past a topic’s range, then that range needs no care', () => {
    const { crashGuard } = guard();
    void crashGuard.takeOver(new Map([['cmd.a', 5n]]), true, undefined);
    crashGuard.committed('cmd.a', 5n);
    expect(crashGuard.careful).toBe(true);
    crashGuard.committed('cmd.a', 6n);
    expect(crashGuard.careful).toBe(false);
  });

  it('before a careful record runs, it writes which record runs alone, with no death yet', async () => {
    const { crashGuard, values } = guard();
    void crashGuard.takeOver(new Map([['cmd.a', 5n]]), true, undefined);
    await expect(crashGuard.beforeCarefulRun(at('cmd.a', 4))).resolves.toBe('run');
    expect(values().at(-1)).toEqual({ instance: 'me', topic: 'cmd.a', offset: '4', deaths: 0 });
  });

  it('when the crashed holder was running that very record alone, then it runs again with one death more, and once it has seen the limit it is dead-lettered', async () => {
    const once = guard();
    void once.crashGuard.takeOver(new Map([['cmd.a', 5n]]), true, {
      instance: 'dead',
      topic: 'cmd.a',
      offset: '4',
      deaths: 0,
    });
    await expect(once.crashGuard.beforeCarefulRun(at('cmd.a', 3))).resolves.toBe('run');
    await expect(once.crashGuard.beforeCarefulRun(at('cmd.a', 4))).resolves.toBe('run');
    expect(once.values().at(-1)).toMatchObject({ offset: '4', deaths: 1 });
    const twice = guard();
    void twice.crashGuard.takeOver(new Map([['cmd.a', 5n]]), true, {
      instance: 'dead',
      topic: 'cmd.a',
      offset: '4',
      deaths: 1,
    });
    await expect(twice.crashGuard.beforeCarefulRun(at('cmd.a', 4))).resolves.toBe('dead-letter');
    expect(twice.values().some((v) => 'deaths' in v)).toBe(false);
  });
});
