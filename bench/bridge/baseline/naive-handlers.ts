/**
 * The baseline's use cases, written the obvious way: validate the command, make its platform
 * calls one after the other, and turn the outcome into one event. No ledger, no retries beyond
 * the client's own, no step events; only the command types the benchmark sends.
 */
import type { SigningClient } from '../../../src/api-client/index.js';
import type { PendingEvent } from '../../../src/handlers/types.js';
import { COMMANDS, type Command, type CommandType } from '../../../src/schemas/messages/index.js';

export interface Handled {
  readonly command: Command;
  readonly event: PendingEvent;
}

/** Undefined for a record that is not a valid command: the baseline just skips it. */
export async function handle(
  client: SigningClient,
  type: CommandType,
  value: Buffer | null,
): Promise<Handled | undefined> {
  let parsed: ReturnType<(typeof COMMANDS)[CommandType]['schema']['safeParse']>;
  try {
    parsed = COMMANDS[type].schema.safeParse(JSON.parse(String(value)));
  } catch {
    return undefined;
  }
  if (!parsed.success) return undefined;
  const command = parsed.data;
  const base = { commandId: command.commandId, bizId: command.bizId, commandType: type };
  try {
    return { command, event: await call(client, type, command, base) };
  } catch (error) {
    return { command, event: failed(base, type, error) };
  }
}

type Base = { commandId: string; bizId: string; commandType: CommandType };

async function call(
  client: SigningClient,
  type: CommandType,
  command: Command,
  base: Base,
): Promise<PendingEvent> {
  const address = { bizId: command.bizId, tenantName: command.tenantName };
  switch (type) {
    case 'remind': {
      const { payload } = command as Command<'remind'>;
      await client.remindSignatories({ ...payload, ...address });
      const data = { ...base, onlySigning: payload.onlySigning ?? true };
      return { type: 'signingbridge.reminder.sent', step: type, data };
    }
    case 'approve': {
      const { payload } = command as Command<'approve'>;
      await client.approveContract({ ...payload, ...address });
      const data = { ...base, pass: payload.pass, comment: payload.comment };
      return { type: 'signingbridge.approval.recorded', step: type, data };
    }
    case 'create-contract':
      return createContract(client, command as Command<'create-contract'>, base);
    default:
      throw new Error(`the baseline does not handle ${type} commands`);
  }
}

async function createContract(
  client: SigningClient,
  { bizId, tenantName, payload }: Command<'create-contract'>,
  base: Base,
): Promise<PendingEvent> {
  const draft = await client.createDraft({ ...payload.contract, bizId, tenantName, send: false });
  const documentIds: string[] = [];
  for (const document of payload.documents) {
    if (document.source !== 'template')
      throw new Error('the baseline adds template documents only');
    const { source: _source, ...fields } = document;
    const added = await client.addDocumentByTemplate({ contractId: draft.id, ...fields });
    documentIds.push(added.documentId);
  }
  if (payload.initiate) await client.initiateContract({ contractId: draft.id });
  const initiated = payload.initiate !== undefined;
  const data = { ...base, contractId: draft.id, documentIds, initiated, reconciled: false };
  return { type: 'signingbridge.contract.created', step: 'created', data };
}

function failed(base: Base, step: string, error: unknown): PendingEvent {
  const { code, name, message, retryable } = error as {
    code?: unknown;
    name?: string;
    message?: string;
    retryable?: unknown;
  };
  const info = {
    code: typeof code === 'string' ? code : 'UNKNOWN',
    name: name ?? 'Error',
    message: message ?? String(error),
    retryable: retryable === true,
  };
  return { type: 'signingbridge.command.failed', step, data: { ...base, step, error: info } };
}
