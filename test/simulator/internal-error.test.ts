// 21990001: an unexpected exception inside a handler answers the internal-error code, not a crash.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/simulator/auth.js';
import { CallLog } from '../../src/simulator/call-log.js';
import { createClock } from '../../src/simulator/clock.js';
import { Directory } from '../../src/simulator/directory.js';
import { FaultInjector } from '../../src/simulator/faults/index.js';
import { IdSequence } from '../../src/simulator/ids.js';
import { DEFAULT_FIXTURES_PATH, loadFixtures } from '../../src/simulator/index.js';
import { HANDLERS } from '../../src/simulator/operations/index.js';
import { createSimulatorServer } from '../../src/simulator/server.js';
import { ContractStore } from '../../src/simulator/state/store.js';
import { draft } from './support/contracts.js';
import { RawPlatform } from './support/raw-platform.js';

describe('internal faults', () => {
  let server: ReturnType<typeof createSimulatorServer>;
  let platform: RawPlatform;
  const calls = new CallLog();

  beforeAll(async () => {
    const directory = new Directory(await loadFixtures(DEFAULT_FIXTURES_PATH));
    const clock = createClock();
    const store = new ContractStore(clock);
    const faults = new FaultInjector();
    const handlers = {
      ...HANDLERS,
      createDraft: () => {
        throw new TypeError('a bug in a handler');
      },
    };
    const context = { store, directory, clock, ids: new IdSequence() };
    const limits = { jsonBytes: 1024, uploadBytes: 1024 };
    const auth = new Authenticator(directory);
    server = createSimulatorServer(
      { context, handlers, auth, faults, calls, limits, log: undefined },
      { store, directory, clock, calls, faults, reset: () => {}, log: undefined },
      undefined,
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    platform = new RawPlatform(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('21990001: an unexpected exception in a handler answers the internal-error code', async () => {
    const body = draft();
    const answer = await platform.call('createDraft', body);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ code: 21990001, responseCode: '21990001' });
    expect(calls.list({ bizId: body.bizId })).toMatchObject([{ code: '21990001', ok: false }]);
  });

  it('11990005: a body beyond the size limit is refused', async () => {
    const answer = await platform.call('remindSignatories', { bizId: 'x'.repeat(2048) });
    expect(answer.body.responseCode).toBe('11990005');
  });
});
