import type { Trx } from '../db/database.ts';

/** What one change did to its target, for the operator console's audit log. */
export type AuditChange = { targetId: string | null; before: unknown; after: unknown };

/**
 * Called by a service inside the transaction of a change it makes for an operator, so the audit row
 * is written with the change or not at all. The console builds it with who did what to which kind of target.
 */
export type AuditHook = (trx: Trx, change: AuditChange) => Promise<void>;
