import {
  PACKAGE_LIMIT,
  PACKAGE_LIMIT_REACHED,
  PACKAGE_NAMED_NOT_FOUND,
  PACKAGE_NOT_FOUND,
  packageNameTaken,
  type PackageInput,
  type SavedPackage,
} from '@portal/contract';
import type { DbOrTrx } from '../../db/database.ts';
import { badRequest, conflict, notFound } from '../../lib/http-errors.ts';
import { newId, nowIso } from '../../lib/ids.ts';
import * as repo from './repository.ts';

/**
 * The name as compared: "Small Box" and "small box" are one package. Worked out here rather than by the database's
 * lower(), which folds only ASCII on SQLite and by the locale on PostgreSQL.
 */
const nameKey = (name: string) => name.trim().normalize('NFC').toLowerCase();

const toPackage = (row: { id: string } & repo.PackageFields): SavedPackage => ({
  _id: row.id,
  name: row.name,
  weight: Number(row.weight),
  weightUnit: row.weight_unit,
  length: row.length === null ? null : Number(row.length),
  width: row.width === null ? null : Number(row.width),
  height: row.height === null ? null : Number(row.height),
});

const fieldsOf = (input: PackageInput, at: string): repo.PackageFields => ({
  name: input.name,
  name_key: nameKey(input.name),
  weight: input.weight,
  weight_unit: input.weightUnit,
  length: input.length,
  width: input.width,
  height: input.height,
  updated_at: at,
});

/** The user's package of this name (any case), or undefined: how an order names a saved package. */
export async function packageNamed(db: DbOrTrx, userId: string, name: string): Promise<SavedPackage | undefined> {
  const row = await repo.findOwnPackageByKey(db, userId, nameKey(name));
  return row && toPackage(row);
}

/** Saved packages: every call is the signed-in customer's own; another customer's id is not found. */
export function createPackageService(db: DbOrTrx) {
  return {
    async list(userId: string): Promise<SavedPackage[]> {
      return (await repo.listOwnPackages(db, userId)).map(toPackage);
    },
    async create(userId: string, input: PackageInput): Promise<SavedPackage> {
      if ((await repo.countOwnPackages(db, userId)) >= PACKAGE_LIMIT) throw badRequest(PACKAGE_LIMIT_REACHED);
      const at = nowIso();
      const row: repo.PackageRow = { id: newId(), user_id: userId, created_at: at, ...fieldsOf(input, at) };
      if (!(await repo.insertPackage(db, row))) throw conflict(packageNameTaken(input.name));
      return toPackage(row);
    },
    async update(userId: string, id: string, input: PackageInput): Promise<SavedPackage> {
      const fields = fieldsOf(input, nowIso());
      const outcome = await repo.updateOwnPackage(db, userId, id, fields);
      if (outcome === 'missing') throw notFound(PACKAGE_NOT_FOUND);
      if (outcome === 'taken') throw conflict(packageNameTaken(input.name));
      return toPackage({ id, ...fields });
    },
    async remove(userId: string, id: string): Promise<void> {
      if (!(await repo.deleteOwnPackage(db, userId, id))) throw notFound(PACKAGE_NOT_FOUND);
    },
    /** The user's package of this name (any case), or undefined. */
    packageNamed: (userId: string, name: string) => packageNamed(db, userId, name),

    /**
     * A route's preValidation hook: a body naming a saved `package` gets its weight (with its unit as WeightUnit) and
     * dimensions where the body left them out, before the body is checked; an unknown name is a 400.
     */
    async fillFromPackage(request: { userId: string; body: unknown }): Promise<void> {
      const body = request.body;
      if (body === null || typeof body !== 'object' || typeof (body as { package?: unknown }).package !== 'string') return;
      const fields = body as Record<string, unknown>;
      const name = String(fields.package).trim();
      const saved = name ? await packageNamed(db, request.userId, name) : undefined;
      if (!saved) throw badRequest(PACKAGE_NAMED_NOT_FOUND(name));
      const given = (key: string) => fields[key] !== undefined && fields[key] !== null && fields[key] !== '';
      if (!given('Weight')) Object.assign(fields, { Weight: saved.weight, WeightUnit: saved.weightUnit });
      if (saved.length !== null && !given('Length') && !given('Width') && !given('Height'))
        Object.assign(fields, { Length: saved.length, Width: saved.width, Height: saved.height });
    },
  };
}
export type PackageService = ReturnType<typeof createPackageService>;
