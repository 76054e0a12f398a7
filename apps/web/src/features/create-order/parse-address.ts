import { regionIdFor } from '@portal/contract';

/**
 * The Quick Order address text (spec section 5), one field per line:
 *
 *   1. name
 *   2. street, optionally followed by ', street 2'
 *   3. city, state
 *   4. ZIP
 *
 * Pure and free of browser APIs, so the server could reuse it. Blank lines and the spaces around
 * each part are ignored. A full state or province name ('Texas', 'ontario') is read as its code;
 * whether the state and ZIP fit the label type's country is left to the order rules of the contract.
 */
export type ParsedAddress = { name: string; street: string; street2: string; city: string; state: string; zip: string };

export type ParseResult = { ok: true; address: ParsedAddress } | { ok: false; message: string };

/** An example of the four lines, shown as the textarea's placeholder. */
export const ADDRESS_TEXT_EXAMPLE = 'John Doe\n123 Main St, Apt 4\nAustin, TX\n78701';
export const ADDRESS_TEXT_EMPTY = 'Enter the address on four lines: name; street (and optional ", street 2"); "city, state"; ZIP';

const fail = (message: string): ParseResult => ({ ok: false, message });

const linesOf = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** A state as the order takes it: the code of a full name, else the text as written. */
const stateCode = (state: string) => regionIdFor(state) ?? state;

/**
 * Whatever the text holds, line by line, even when it is not four lines yet: the address a switch
 * to Normal Order carries over. Parts the text lacks are empty.
 */
export function readAddressText(text: string): ParsedAddress {
  const [name = '', streetLine = '', cityLine = '', ...rest] = linesOf(text);
  const comma = streetLine.indexOf(',');
  const lastComma = cityLine.lastIndexOf(',');
  return {
    name,
    street: (comma < 0 ? streetLine : streetLine.slice(0, comma)).trim(),
    street2: comma < 0 ? '' : streetLine.slice(comma + 1).trim(),
    city: (lastComma < 0 ? cityLine : cityLine.slice(0, lastComma)).trim(),
    state: lastComma < 0 ? '' : stateCode(cityLine.slice(lastComma + 1).trim()),
    zip: rest.join(' '),
  };
}

export function parseAddressText(text: string): ParseResult {
  const lines = linesOf(text);
  if (lines.length === 0) return fail(ADDRESS_TEXT_EMPTY);
  if (lines.length !== 4) {
    return fail(`The address must have 4 lines (name; street and optional ", street 2"; "city, state"; ZIP), not ${lines.length}`);
  }
  const [name, streetLine, cityLine, zip] = lines as [string, string, string, string];

  const comma = streetLine.indexOf(',');
  const street = (comma < 0 ? streetLine : streetLine.slice(0, comma)).trim();
  const street2 = comma < 0 ? '' : streetLine.slice(comma + 1).trim();
  if (!street) return fail('Line 2 must start with the street, e.g. "123 Main St, Apt 4"');

  const lastComma = cityLine.lastIndexOf(',');
  if (lastComma < 0) return fail(`Line 3 must be "city, state", e.g. "Austin, TX"; found "${cityLine}"`);
  const city = cityLine.slice(0, lastComma).trim();
  const state = cityLine.slice(lastComma + 1).trim();
  if (!city) return fail('Line 3 is missing the city before the comma, e.g. "Austin, TX"');
  if (!state) return fail('Line 3 is missing the state after the comma, e.g. "Austin, TX"');

  return { ok: true, address: { name, street, street2, city, state: stateCode(state), zip } };
}

/** The same four lines for an address, e.g. to fill the text from a saved address. */
export function formatAddressText(address: ParsedAddress): string {
  return [address.name, address.street2 ? `${address.street}, ${address.street2}` : address.street, `${address.city}, ${address.state}`, address.zip].join(
    '\n',
  );
}
