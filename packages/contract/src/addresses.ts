import { z } from 'zod';
import { printedLine } from './common.ts';
import { regionIdFor } from './orders-values.ts';
import { CITY_MAX, COMPANY_MAX, NAME_MAX, STREET_MAX } from './orders-values.ts';
import { US_STATE_CODES } from './regions.ts';
import { US_ZIP } from './orders.ts';

export const ADDRESS_CREATED = 'Address created successfully';
export const ADDRESS_UPDATED = 'Address updated successfully';
export const ADDRESS_DELETED = 'Address deleted successfully';
export const ADDRESS_NOT_FOUND = 'Address not found';
export const ADDRESS_LIMIT = 500;
export const ADDRESS_LIMIT_REACHED = `You can save at most ${ADDRESS_LIMIT} addresses`;
/** 409: the same name, company and address lines (case and spaces aside) are saved already. */
export const ADDRESS_DUPLICATE = 'This address is already in your address book';
export const ADDRESS_ZIP_INVALID = 'ZIP must be 5 digits, or ZIP+4 like 12345-6789';
/** Saved addresses are always in the United States. */
export const ADDRESS_COUNTRY = 'United States';

const text = printedLine;
const required = (label: string, max: number) => text(label, max).min(1, `${label} is required`);
const optional = (label: string, max: number) =>
  text(label, max)
    .nullish()
    .transform((v) => v ?? '');

/** POST /address/create and PUT /address/update/{id}. State: one of the 50 states, DC or PR (ID or name); ZIP: 5 digits or ZIP+4, as orders take. */
export const addressBody = z.object({
  name: required('Name', NAME_MAX),
  company: optional('Company', COMPANY_MAX),
  street: required('Street', STREET_MAX),
  street2: optional('Street 2', STREET_MAX),
  city: required('City', CITY_MAX),
  state: required('State', 40)
    .transform((s) => regionIdFor(s) ?? s)
    .refine((s) => US_STATE_CODES.includes(s), 'State must be a US state, DC or PR'),
  zip: z.preprocess((v) => (typeof v === 'number' ? String(v) : v), required('ZIP', 10).regex(US_ZIP, ADDRESS_ZIP_INVALID)),
  country: optional('Country', 40).refine((c) => c === '' || /^(united states|united states of america|us|usa)$/i.test(c), 'Country must be United States'),
});
export type AddressBody = z.input<typeof addressBody>;

export const addressSchema = z.object({
  _id: z.string(),
  name: z.string(),
  company: z.string(),
  street: z.string(),
  street2: z.string(),
  city: z.string(),
  state: z.string(),
  zip: z.string(),
  country: z.literal(ADDRESS_COUNTRY),
});
export type Address = z.infer<typeof addressSchema>;

/** GET /address/readAll */
export const addressListResponse = z.object({ addresses: z.array(addressSchema) });

// ---- address verification (EASYPOST_VERIFY_ADDRESSES=true; its messages in addresses-values.ts) ----------

/** POST /address/verify: an address of the Normal Order form or the address book, as typed (US or Canada). */
export const addressCheckBody = z.object({
  name: text('Name', NAME_MAX),
  company: optional('Company', COMPANY_MAX),
  street: required('Street', STREET_MAX),
  street2: optional('Street 2', STREET_MAX),
  city: required('City', CITY_MAX),
  state: required('State', 40),
  zip: required('ZIP', 10),
  country: optional('Country', 40),
});
export type AddressCheckBody = z.input<typeof addressCheckBody>;
export const addressCheckSuggestion = z.object({ street: z.string(), street2: z.string(), city: z.string(), state: z.string(), zip: z.string() });
export type AddressCheckSuggestion = z.infer<typeof addressCheckSuggestion>;
/**
 * checked: false when the shop does not verify addresses (or the carrier could not be asked). verified: the carrier
 * knows the address; suggested: its corrected lines when they differ from those typed, else null; message: what to tell.
 */
export const addressCheckResponse = z.object({
  message: z.string(),
  checked: z.boolean(),
  verified: z.boolean(),
  suggested: addressCheckSuggestion.nullable(),
});
export type AddressCheckResponse = z.infer<typeof addressCheckResponse>;
