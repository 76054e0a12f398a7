import { expect, it } from 'vitest';
import { DATABASE_UNAVAILABLE_MESSAGE, publicError } from './http-errors.ts';

const unavailable = { statusCode: 503, message: DATABASE_UNAVAILABLE_MESSAGE, details: {}, headers: { 'retry-after': '5' }, internal: true };
const error = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

it('a database away or busy for a while is answered 503 with Retry-After; its other errors and an outside call that failed stay 500', () => {
  for (const away of [
    error('terminating connection due to administrator command', '57P01'),
    error('the database system is starting up', '57P03'),
    error('connection failure', '08006'),
    error('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    error('Connection terminated unexpectedly'),
    error('Client was closed and is not queryable'),
    error('database is locked', 'SQLITE_BUSY'),
    error('disk I/O error', 'SQLITE_IOERR_WRITE'),
  ])
    expect(publicError(away), away.message).toEqual(unavailable);
  const fetchFailed = Object.assign(new TypeError('fetch failed'), { cause: error('connect ECONNREFUSED', 'ECONNREFUSED') });
  for (const other of [error('duplicate key value violates unique constraint', '23505'), error('no such table: t', 'SQLITE_ERROR'), fetchFailed])
    expect(publicError(other).statusCode, other.message).toBe(500);
});
