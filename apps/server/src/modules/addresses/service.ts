import {
  ADDRESS_CHECK_UNAVAILABLE,
  ADDRESS_CORRECTED,
  ADDRESS_COUNTRY,
  ADDRESS_DUPLICATE,
  ADDRESS_LIMIT,
  ADDRESS_LIMIT_REACHED,
  ADDRESS_NOT_CHECKED,
  ADDRESS_NOT_FOUND,
  ADDRESS_VERIFIED,
  type Address,
  type AddressCheckResponse,
  type AddressCheckSuggestion,
  type CreateOrderInput,
} from '@portal/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { LabelParty, LabelProvider } from '../../providers/labels/label-provider.ts';
import type { addressBody } from '@portal/contract';
import type { z } from 'zod';
import { lockUser, type Db } from '../../db/database.ts';
import { badRequest, conflict, notFound } from '../../lib/http-errors.ts';
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

/** The lines that make an entry of the book, compared without case and with runs of spaces as one. */
const ENTRY_KEYS = ['name', 'company', 'street', 'street2', 'city', 'state', 'zip'] as const;
const entryKey = (fields: Pick<repo.AddressFields, (typeof ENTRY_KEYS)[number]>) =>
  ENTRY_KEYS.map((key) => fields[key].trim().replace(/\s+/g, ' ').toLowerCase()).join('\n');

export function createAddressService(db: Db) {
  /** Refuses (409) an entry the user has saved already under another id. */
  const refuseDuplicate = (rows: repo.AddressRow[], fields: repo.AddressFields, exceptId?: string) => {
    const key = entryKey(fields);
    if (rows.some((row) => row.id !== exceptId && entryKey(row) === key)) throw conflict(ADDRESS_DUPLICATE);
  };
  return {
    async list(userId: string): Promise<Address[]> {
      return (await repo.listOwnAddresses(db, userId)).map(toAddress);
    },
    // A user's saves go one at a time (lockUser): two at once could each find no twin, or room for one more, and both save.
    async create(userId: string, input: AddressInput): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await lockUser(trx, userId);
        // At most ADDRESS_LIMIT rows: the book is read whole to find an entry saved twice.
        const rows = await repo.listOwnAddresses(trx, userId);
        if (rows.length >= ADDRESS_LIMIT) throw badRequest(ADDRESS_LIMIT_REACHED);
        const fields = fieldsOf(input);
        refuseDuplicate(rows, fields);
        await repo.insertAddress(trx, { id: newId(), user_id: userId, created_at: nowIso(), ...fields });
      });
    },
    async update(userId: string, id: string, input: AddressInput): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await lockUser(trx, userId);
        const rows = await repo.listOwnAddresses(trx, userId);
        if (!rows.some((row) => row.id === id)) throw notFound(ADDRESS_NOT_FOUND);
        const fields = fieldsOf(input);
        refuseDuplicate(rows, fields, id);
        if (!(await repo.updateOwnAddress(trx, userId, id, fields))) throw notFound(ADDRESS_NOT_FOUND);
      });
    },
    async remove(userId: string, id: string): Promise<void> {
      if (!(await repo.deleteOwnAddress(db, userId, id))) throw notFound(ADDRESS_NOT_FOUND);
    },
  };
}

type Lines = AddressCheckSuggestion;
const linesOf = (party: Pick<LabelParty, keyof Lines>): Lines => ({
  street: party.street,
  street2: party.street2,
  city: party.city,
  state: party.state,
  zip: party.zip,
});
const sameLines = (a: Lines, b: Lines) => (Object.keys(a) as (keyof Lines)[]).every((k) => a[k].trim() === b[k].trim());

/** Rows of a CSV whose address the carrier could not verify. */
export type UnverifiedRow = { row: number; side: 'From' | 'To'; message: string };

/**
 * Address verification through the label provider (EASYPOST_VERIFY_ADDRESSES=true): the Normal Order form and the
 * address book offer the carrier's corrected address before paying; a CSV's validation names the rows it does not
 * know. Off (or with a provider that cannot verify), nothing is asked.
 */
export function createAddressVerifier(deps: { labels: LabelProvider; enabled: boolean; log: FastifyBaseLogger }) {
  const verify = deps.enabled ? deps.labels.verifyAddress?.bind(deps.labels) : undefined;

  return {
    /** One address as typed: verified (with the carrier's lines when they differ), unknown, or not checked. */
    async check(party: LabelParty): Promise<AddressCheckResponse> {
      if (!verify) return { message: ADDRESS_NOT_CHECKED, checked: false, verified: false, suggested: null };
      let answer;
      try {
        answer = await verify(party);
      } catch (error) {
        deps.log.warn({ err: error }, 'address verification failed');
        return { message: ADDRESS_CHECK_UNAVAILABLE, checked: false, verified: false, suggested: null };
      }
      if (!answer.verified) return { message: answer.message, checked: true, verified: false, suggested: null };
      const suggested = linesOf(answer.address);
      return sameLines(suggested, linesOf(party))
        ? { message: ADDRESS_VERIFIED, checked: true, verified: true, suggested: null }
        : { message: ADDRESS_CORRECTED, checked: true, verified: true, suggested };
    },

    /**
     * The rows of a CSV whose From or To address the carrier does not know. Each distinct address is asked once (a
     * file's rows often share their sender), through the provider's concurrency and rate limit; one the carrier
     * could not be asked about is not named.
     */
    async uncheckedRows(rows: { row: number; input: CreateOrderInput }[], countryOf: (side: 'From' | 'To') => string): Promise<UnverifiedRow[]> {
      if (!verify) return [];
      const asked = new Map<string, Promise<string | null>>();
      const messageOf = (party: LabelParty) => {
        const key = JSON.stringify(linesOf(party));
        let answer = asked.get(key);
        if (!answer) {
          answer = verify(party).then(
            (check) => (check.verified ? null : check.message),
            (error) => {
              deps.log.warn({ err: error }, 'address verification failed');
              return null;
            },
          );
          asked.set(key, answer);
        }
        return answer;
      };
      const partyOf = (input: CreateOrderInput, side: 'From' | 'To'): LabelParty => ({
        name: input[`${side}Name`],
        company: input[`${side}Company`] ?? '',
        street: input[`${side}Street`],
        street2: input[`${side}Street2`] ?? '',
        city: input[`${side}City`],
        state: input[`${side}State`],
        zip: input[`${side}Zip`],
        country: countryOf(side),
        phone: '',
      });
      const checks = rows.flatMap(({ row, input }) =>
        (['From', 'To'] as const).map(async (side) => ({ row, side, message: await messageOf(partyOf(input, side)) })),
      );
      return (await Promise.all(checks)).filter((c): c is UnverifiedRow => c.message !== null);
    },
  };
}
export type AddressVerifier = ReturnType<typeof createAddressVerifier>;
