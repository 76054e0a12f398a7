import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);

// better-sqlite3 12 compiled against Node >= 24.19 headers aborts the process when V8 collects a statement
// (nodejs/node#65446); 13 fixes it (Node-API) but does not load on Node 20, which keeps 12 as `better-sqlite3-node20`.
const nodeMajor = Number(process.versions.node.split('.')[0]);

/** The driver's entry file, for worker threads that open the same database. */
export const sqliteDriverPath = require.resolve(nodeMajor >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20');

const SqliteDatabase = require(sqliteDriverPath) as typeof BetterSqlite3;
export default SqliteDatabase;
