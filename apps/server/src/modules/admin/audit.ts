import type { AuditHook } from '../../lib/audit.ts';
import { newId, nowIsoIncreasing } from '../../lib/ids.ts';
import { insertAudit } from './repository.ts';

/** What an audit row says was done, e.g. 'user.adjust' on a 'user', 'label_type.update' on a 'label_type'. */
export type AuditAction = { action: string; targetType: string };

const json = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));

/**
 * The hook a service calls inside the transaction of a change, writing who (an admin's user id, or
 * null for the command line), what, the target and its values before and after.
 */
export function auditBy(adminId: string | null, what: AuditAction): AuditHook {
  return async (trx, change) => {
    await insertAudit(trx, {
      id: newId(),
      admin_id: adminId,
      action: what.action,
      target_type: what.targetType,
      target_id: change.targetId,
      before_json: json(change.before),
      after_json: json(change.after),
      created_at: nowIsoIncreasing(),
    });
  };
}
