import type { Migration, MigrationProvider } from 'kysely';
import * as foundation from './2026-11-21-01-foundation.ts';
import * as orders from './2026-11-21-02-orders.ts';
import * as billing from './2026-11-21-03-billing.ts';
import * as jobs from './2026-11-21-04-jobs.ts';
import * as bulk from './2026-11-21-05-bulk.ts';

/** Every migration, in order. A new one is appended with a later date prefix. */
const migrations: Record<string, Migration> = {
  '2026-11-21-01-foundation': foundation,
  '2026-11-21-02-orders': orders,
  '2026-11-21-03-billing': billing,
  '2026-11-21-04-jobs': jobs,
  '2026-11-21-05-bulk': bulk,
};

export const migrationProvider: MigrationProvider = { getMigrations: async () => migrations };
