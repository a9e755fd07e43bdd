import type { CallContext } from '../errors.js';

/**
 * Which contract a call addresses, read from the raw request so that even a request refused
 * locally can be traced. Long ids may arrive as numbers; they are reported as strings.
 */
export function callContext(operation: string, request: unknown): CallContext {
  const fields = (typeof request === 'object' && request !== null ? request : {}) as Record<
    string,
    unknown
  >;
  return {
    operation,
    bizId: asId(fields.bizId),
    contractId: asId(fields.contractId),
  };
}

function asId(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}
