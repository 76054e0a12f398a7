/** PostgreSQL's: admin_shutdown, crash_shutdown, cannot_connect_now; and class 08, connection exceptions. */
const PG_AWAY = /^(57P0[123]|08...)$/;
/** Node's, for a database that cannot be reached or whose connection broke. */
const NET_AWAY = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** SQLite's that pass: another process holds the lock past busy_timeout, or the disk failed a read or write. */
const SQLITE_AWAY = /^SQLITE_(BUSY|LOCKED|IOERR|PROTOCOL)/;

/**
 * Whether `error` is the database being away or busy for a while (a restart, a failover, a connection ended, a lock
 * held too long), rather than a fault of the request or the code: answered 503 with Retry-After, as the same
 * request will work once it is back. pg's own errors for a connection that ended have no code: under a query
 * ("Connection terminated unexpectedly"), and after ("Client was closed and is not queryable": the rollback of a
 * transaction whose connection broke, whose error Kysely throws in place of the query's).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (PG_AWAY.test(code) || NET_AWAY.has(code) || SQLITE_AWAY.test(code))) return true;
  return typeof message === 'string' && /^Connection terminated|timeout exceeded when trying to connect|is not queryable$/.test(message);
}

/**
 * `work`, run again every `everyMs` while it fails on the database being away (isDatabaseUnavailable), for up to
 * `forMs`; then its last error is thrown. For a write that lets go of something (a claim) which would otherwise be
 * held until it runs out.
 */
export async function whenAvailable<T>(work: () => Promise<T>, forMs: number, everyMs = 1000): Promise<T> {
  for (const until = Date.now() + forMs; ;) {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() + everyMs > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }
}
