import { MockAgent } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AdminClient } from './admin-client.js';

const ORIGIN = 'http://simulator.test';
const HOUR_MS = 3_600_000;

/** A simulator that refuses /admin/health `failures` times (or always), then answers. */
function simulator(failures?: number) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(ORIGIN);
  const refused = pool
    .intercept({ path: '/admin/health', method: 'GET' })
    .replyWithError(new Error('connect ECONNREFUSED'));
  if (failures === undefined) refused.persist();
  else {
    refused.times(failures);
    pool.intercept({ path: '/admin/health', method: 'GET' }).reply(200, { ok: true, contracts: 0 });
  }
  return new AdminClient(ORIGIN, { dispatcher: agent });
}

describe('AdminClient.waitUntilReady', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('when the wall clock stands still, then it still gives up after its timeout: the deadline is monotonic', async () => {
    vi.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 0, 1));
    await expect(simulator().waitUntilReady(200)).rejects.toThrow('ECONNREFUSED');
  });

  it('when the wall clock jumps an hour ahead at every look, then it still waits for the simulator to answer', async () => {
    let wall = Date.UTC(2026, 0, 1);
    vi.spyOn(Date, 'now').mockImplementation(() => {
      wall += HOUR_MS;
      return wall;
    });
    await expect(simulator(2).waitUntilReady(10_000)).resolves.toBeUndefined();
  });
});
