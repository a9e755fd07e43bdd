/**
 * Makes the contracts a workload's remind and approve commands address, straight through the
 * SigningClient (no Kafka): per bizId a draft whose initiator has `approvalsPerBizId` AUDIT
 * steps before its seal, a template document, and the initiation, so the contract is SIGNING
 * with an approval awaited. Run while the simulator adds no latency: it is set-up, not measured.
 */
import { Pool } from 'undici';
import { SigningClient } from '../../src/api-client/index.js';
import { APPROVER, COMPANY, PERSON, SEAL, TEMPLATE, type Workload } from './workload.js';

export const APP = { appToken: 'demo-app-token', appSecret: 'demo-app-secret' } as const;

const WORKERS = 32;

export async function setUpContracts(simulatorUrl: string, workload: Workload): Promise<void> {
  const pool = new Pool(simulatorUrl, { connections: WORKERS });
  const client = new SigningClient({
    baseUrl: simulatorUrl,
    ...APP,
    requestsPerSecond: 0,
    dispatcher: pool,
    maxConcurrentRequests: WORKERS,
  });
  const queue = [...workload.bizIds];
  const worker = async () => {
    for (let bizId = queue.pop(); bizId !== undefined; bizId = queue.pop()) {
      await makeContract(client, bizId, workload.approvalsPerBizId);
    }
  };
  try {
    await Promise.all(Array.from({ length: WORKERS }, worker));
  } finally {
    await pool.close();
  }
}

async function makeContract(client: SigningClient, bizId: string, approvals: number) {
  const audits = Array.from({ length: approvals }, () => ({
    type: 'AUDIT' as const,
    operators: [APPROVER],
  }));
  const initiator = {
    tenantType: 'COMPANY' as const,
    tenantName: COMPANY,
    actions: [...audits, { type: 'COMPANY' as const, sealId: SEAL }],
  };
  const draft = await client.createDraft({
    bizId,
    subject: `Bench ${bizId}`,
    send: false,
    signatories: [initiator, PERSON],
  });
  await client.addDocumentByTemplate({ contractId: draft.id, ...TEMPLATE });
  await client.initiateContract({ contractId: draft.id });
}
