import type { Migration, MigrationProvider } from 'kysely';
import * as foundation from './2026-11-21-01-foundation.ts';

/** Every migration, in order. A new one is appended with a later date prefix. */
const migrations: Record<string, Migration> = {
  '2026-11-21-01-foundation': foundation,
};

export const migrationProvider: MigrationProvider = { getMigrations: async () => migrations };
