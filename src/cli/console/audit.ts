/**
 * The audit trail: one log line per action, and per refusal of one, naming who (as signed in),
 * their role and how they were identified. Lines carry `"audit":true` to be picked out of the
 * console's log; they name dead letters by position and id, never their content.
 */
import type { Logger } from 'pino';
import type { Identity } from './auth.js';

export type AuditAction =
  | 'sign in'
  | 'sign in refused'
  | 'sign out'
  | 'send back'
  | 'reveal'
  | 'refused';

export function audit(
  log: Logger,
  who: Identity | undefined,
  action: AuditAction,
  details: Record<string, unknown> = {},
): void {
  log.info(
    {
      audit: true,
      action,
      operator: who?.name,
      role: who?.role,
      via: who?.via,
      ...details,
    },
    `console: ${action}`,
  );
}
