/**
 * How a call names its contract: by contractId when known, else by bizId, with tenantName for a
 * contract created in a subsidiary's name (by contractId the platform needs no owner).
 */
export interface ContractAddress {
  readonly contractId?: string;
  readonly bizId?: string;
  readonly tenantName?: string | undefined;
}

interface Addressed {
  readonly bizId: string;
  readonly tenantName?: string | undefined;
  readonly payload: { readonly contractId?: string | undefined };
}

/** A command's own address: its payload's contractId when given, else its bizId. */
export function addressOf(command: Addressed): ContractAddress {
  return contractAddress(command, command.payload.contractId);
}

export function contractAddress(
  command: Omit<Addressed, 'payload'>,
  contractId: string | undefined,
): ContractAddress {
  if (contractId) return { contractId };
  return { bizId: command.bizId, tenantName: command.tenantName };
}
