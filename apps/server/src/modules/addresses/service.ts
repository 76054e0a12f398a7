import { ADDRESS_COUNTRY, ADDRESS_LIMIT, ADDRESS_LIMIT_REACHED, ADDRESS_NOT_FOUND, type Address } from '@portal/contract';
import type { addressBody } from '@portal/contract';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import { badRequest, notFound } from '../../lib/http-errors.ts';
import { newId, nowIso } from '../../lib/ids.ts';
import * as repo from './repository.ts';

type AddressInput = z.output<typeof addressBody>;

const toAddress = (row: repo.AddressRow): Address => ({
  _id: row.id,
  name: row.name,
  company: row.company,
  street: row.street,
  street2: row.street2,
  city: row.city,
  state: row.state,
  zip: row.zip,
  country: ADDRESS_COUNTRY,
});

// Country is always stored as the one the address book allows.
const fieldsOf = (input: AddressInput): repo.AddressFields => ({
  name: input.name,
  company: input.company,
  street: input.street,
  street2: input.street2,
  city: input.city,
  state: input.state,
  zip: input.zip,
  country: ADDRESS_COUNTRY,
});

export function createAddressService(db: Db) {
  return {
    async list(userId: string): Promise<Address[]> {
      return (await repo.listOwnAddresses(db, userId)).map(toAddress);
    },
    async create(userId: string, input: AddressInput): Promise<void> {
      if ((await repo.countOwnAddresses(db, userId)) >= ADDRESS_LIMIT) throw badRequest(ADDRESS_LIMIT_REACHED);
      await repo.insertAddress(db, { id: newId(), user_id: userId, created_at: nowIso(), ...fieldsOf(input) });
    },
    async update(userId: string, id: string, input: AddressInput): Promise<void> {
      if (!(await repo.updateOwnAddress(db, userId, id, fieldsOf(input)))) throw notFound(ADDRESS_NOT_FOUND);
    },
    async remove(userId: string, id: string): Promise<void> {
      if (!(await repo.deleteOwnAddress(db, userId, id))) throw notFound(ADDRESS_NOT_FOUND);
    },
  };
}
