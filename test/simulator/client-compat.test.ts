// The seam: the bridge's own api-client, unmodified, against the simulator. Results parse with
// the shared schemas and refusals come back as the client's PlatformRejected with the table's code.
import { afterAll, describe, expect, it } from 'vitest';
import { SigningClient } from '../../src/api-client/index.js';
import { PlatformRejected } from '../../src/errors.js';
import { pdf } from '../support/pdf.js';
import { uniqueId } from '../support/unique.js';
import { COMPANY, NORMAL_SEAL } from './support/contracts.js';
import { useSimulator } from './support/simulator.js';

describe('api-client against the simulator', () => {
  const s = useSimulator();
  let client: SigningClient | undefined;
  const connect = () => {
    client ??= new SigningClient({
      baseUrl: s.sim.url,
      appToken: 'demo-app-token',
      appSecret: 'demo-app-secret',
    });
    return client;
  };
  afterAll(() => client?.close());

  it('drives a contract from draft to COMPLETE', async () => {
    const api = connect();
    const id = uniqueId('client');
    const contract = await api.createDraft({
      bizId: id,
      subject: 'Client round trip',
      signatories: [
        {
          tenantType: 'COMPANY',
          tenantName: COMPANY,
          actions: [{ type: 'COMPANY', sealId: NORMAL_SEAL }],
        },
        {
          tenantType: 'PERSONAL',
          tenantName: 'Bob',
          receiver: { contact: '13900000001', contactType: 'MOBILE' },
        },
      ],
    });
    expect(contract.status).toBe('DRAFT');
    const actionId = contract.signatories?.[0]?.actions?.[0]?.id ?? '';
    await api.addDocumentByFile({
      bizId: id,
      title: 'Terms',
      fileSuffix: 'pdf',
      file: await pdf(['SIGN-HERE']),
    });
    await api.initiateContract({
      bizId: id,
      stampers: [{ type: 'COMPANY', actionId, keyword: 'SIGN-HERE' }],
    });
    await api.remindSignatories({ bizId: id });
    expect((await s.sim.admin.signAll({ bizId: id })).status).toBe('COMPLETE');
  });

  it('a refusal is a PlatformRejected carrying the code of the table', async () => {
    const api = connect();
    const failure = await api
      .approveContract({ bizId: uniqueId('none'), tenantName: COMPANY, pass: true })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PlatformRejected);
    expect((failure as PlatformRejected).details).toMatchObject({
      platformCode: '11101003',
      family: 'not-found',
    });
  });
});
