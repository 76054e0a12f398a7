import type { AuditHook } from '../../lib/audit.ts';
import { newId, nowIsoIncreasing } from '../../lib/ids.ts';
import { insertAudit } from './repository.ts';

/** What an audit row says was done, e.g. 'user.adjust' on a 'user', 'label_type.update' on a 'label_type'. */
export type AuditAction = { action: string; targetType: string };

const json = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));

/** Who an audit row names: an admin's user id, null for the command line, or SYSTEM for the shop itself. */
export const SYSTEM = 'system' as const;

/**
 * The hook a service calls inside the transaction of a change, writing who (an admin's user id, null for the command
 * line, or SYSTEM), what, the target and its values before and after.
 */
export function auditBy(adminId: string | null | typeof SYSTEM, what: AuditAction): AuditHook {
  return async (trx, change) => {
    await insertAudit(trx, {
      id: newId(),
      admin_id: adminId === SYSTEM ? null : adminId,
      actor: adminId === SYSTEM ? SYSTEM : null,
      action: what.action,
      target_type: what.targetType,
      target_id: change.targetId,
      before_json: json(change.before),
      after_json: json(change.after),
      created_at: nowIsoIncreasing(),
    });
  };
}
