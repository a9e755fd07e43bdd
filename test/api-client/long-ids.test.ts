/**
 * The platform's ids are 19-digit numbers beyond 2^53, and the spec types add-signatory's
 * contractId and every corpSealIds as Java Longs: bare JSON numbers on the wire. Through the
 * simulator over HTTP, such ids travel both ways without losing a digit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SigningClient } from '../../src/api-client/index.js';
import {
  DEFAULT_FIXTURES_PATH,
  loadFixtures,
  type RunningSimulator,
  startSimulator,
} from '../../src/simulator/index.js';
import { RawPlatform } from '../simulator/support/raw-platform.js';
import { clientFor, person, signingContract } from './helpers.js';

/** 2^53 + 1: the first integer a JavaScript number cannot hold. */
const LONG_SEAL = '9007199254740993';
const PARTNER = {
  tenantType: 'COMPANY',
  tenantName: 'Acme Partners',
  receiver: { contact: '13900000077', contactType: 'MOBILE' },
} as const;

let sim: RunningSimulator;
let client: SigningClient;
let raw: RawPlatform;

beforeAll(async () => {
  const fixtures = await loadFixtures(DEFAULT_FIXTURES_PATH);
  const seal = { id: LONG_SEAL, name: 'Seal with a long id', status: 'NORMAL' as const };
  sim = await startSimulator({
    log: false,
    fixtures: { ...fixtures, seals: [...fixtures.seals, seal] },
  });
  client = clientFor(sim);
  raw = new RawPlatform(sim.url);
});
afterAll(async () => {
  await client.close();
  await sim.stop();
});

describe('ids beyond 2^53 through the simulator', () => {
  it('when the client adds a signatory by a 19-digit contractId with a 2^53 + 1 seal, then the simulator finds that contract and both ids come back whole', async () => {
    const { contractId } = await signingContract(client, 'long-1', [person(1)]);
    expect(contractId).toMatch(/^\d{19}$/);
    const actions = [{ type: 'COMPANY' as const, corpSealIds: [LONG_SEAL] }];
    const signatory = { ...PARTNER, actions };
    const added = await client.addSignatory({ contractId, signatory });
    expect(added.actions?.[0]?.corpSealIds).toEqual([LONG_SEAL]);
    const stored = await sim.admin.contract({ contractId });
    expect(stored.signatories.at(-1)?.actions[0]?.corpSealIds).toEqual([LONG_SEAL]);
    const [call] = await sim.admin.calls({ operation: 'addSignatory' });
    expect(call).toMatchObject({ contractId, ok: true });
  });

  it('when a raw request sends the contractId as a bare 19-digit number, then the simulator answers success and writes the seal id as a bare number', async () => {
    const { contractId } = await signingContract(client, 'long-2', [person(1)]);
    const body = `{"contractId":${contractId},"signatory":${JSON.stringify({
      ...PARTNER,
      actions: [{ type: 'COMPANY', corpSealIds: ['0'] }],
    }).replace('"0"', LONG_SEAL)}}`;
    expect(body).toContain(`"contractId":${contractId},`);
    const answer = await raw.call('addSignatory', body);
    expect(answer.body).toMatchObject({ responseCode: '00000000' });
    expect(answer.text).toContain(`"corpSealIds":[${LONG_SEAL}]`);
    expect(answer.body.result.actions[0].corpSealIds).toEqual([LONG_SEAL]);
    const stored = await sim.admin.contract({ contractId });
    expect(stored.signatories).toHaveLength(2);
  });

  it('when the contractId sent as a number names no contract, then the answer is the not-found code, not an internal error', async () => {
    const answer = await raw.call(
      'addSignatory',
      `{"contractId":1234567890123456789,"signatory":${JSON.stringify(PARTNER)}}`,
    );
    expect(answer.body).toMatchObject({ responseCode: '11101003' });
    expect(answer.body.message).toContain('1234567890123456789');
  });
});
