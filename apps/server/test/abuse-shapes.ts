// Hostile input for the abuse suite (abuse.test.ts): values drawn by fast-check from a route's JSON Schema (made from
// its zod schema), each hostile value tagged with its shape so the suite can count and name what it sent.
import fc from 'fast-check';
import { SENDER, orderParties } from './sample-addresses.ts';

/** A hostile value and the name of its shape; `untag` takes a generated structure apart again. */
export class Tagged {
  constructor(
    readonly shape: string,
    readonly value: unknown,
  ) {}
}

/** The plain value of a generated structure, and the shapes of the hostile values in it (added to `shapes`). */
export function untag(value: unknown, shapes: Set<string>): unknown {
  if (value instanceof Tagged) {
    shapes.add(value.shape);
    return untag(value.value, shapes);
  }
  if (Array.isArray(value)) return value.map((item) => untag(item, shapes));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, untag(item, shapes)]));
  return value;
}

const combining = 'e' + '\u0301'.repeat(20_000);

/** Strings that have broken shops: every Unicode oddity, numbers and not-numbers as text, huge ones. */
export const HOSTILE_STRINGS: Record<string, string[]> = {
  'empty or blank': ['', ' ', '\t\r\n'],
  'lone surrogate': ['\uD800', 'a\uDC00b', '\uDBFF'],
  NUL: ['\u0000', 'abc\u0000def'],
  'control characters': ['\u0007\u001b[2J', '\u0085\u2028\u2029'],
  'bidi marks': ['\u202Eevil\u202C', '\u2066\u200F\u200Ename\u2069'],
  'combining run': [combining],
  'huge string': ['A'.repeat(300_000)],
  emoji: ['👩‍👩‍👧‍👦'.repeat(500), '\uFEFF\uFFFF\uFFFE'],
  'number as string': ['2', '-1', '0', '1.5'],
  '1e308 as string': ['1e308', '-1e308', '1e-300', '1e309'],
  'NaN-ish string': ['NaN', 'Infinity', '-Infinity', '0x2', '2e', '١٢', 'undefined', 'null'],
  'injection text': ["'; DROP TABLE ledger; --", '<script>alert(1)</script>', '${7*7}', '../../../../etc/passwd', '%00%ff'],
  'prototype keys': ['__proto__', 'constructor', 'prototype'],
};

export const HOSTILE_NUMBERS: Record<string, unknown[]> = {
  '1e308': [1e308, -1e308, 5e-324, 1e-300],
  'negative number': [-1, -0.01, -Number.MAX_SAFE_INTEGER],
  zero: [0, -0],
  'unsafe integer': [2 ** 53 + 2, Number.MAX_VALUE],
  fraction: [0.1, 1.000000001],
};

/** Values of the wrong type for any field. */
export const WRONG_TYPES: Record<string, unknown[]> = {
  'wrong type': [null, true, [], {}, [[[[]]]], { $gt: '' }],
};

/** What a field of that name plausibly holds, so a body with one hostile field gets past the others. */
const PLAUSIBLE: Record<string, unknown> = {
  labelType: 'priority',
  design: 'normal',
  Weight: 2,
  weight: 2,
  Length: 10,
  Width: 8,
  Height: 4,
  length: 10,
  width: 8,
  height: 4,
  ...orderParties(),
  ...SENDER,
  fromName: 'Jane Sender',
  fromStreet: '123 Main Street',
  fromCity: 'New York',
  fromState: 'NY',
  fromZip: '10001',
  fromCountry: 'United States',
  fromPhone: '2125550100',
  toName: 'Hans Empfaenger',
  toStreet: 'Hauptstrasse 1',
  toCity: 'Berlin',
  toZip: '10115',
  toCountry: 'Germany',
  toPhone: '+49301234567',
  amount: 10,
  page: 1,
  limit: 10,
  email: 'abuse@example.com',
  // Never a real address: a webhook the shop would post to.
  url: null,
};

type Schema = {
  $ref?: string;
  $defs?: Record<string, Schema>;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  minimum?: number;
  maximum?: number;
};

const tagged = (groups: Record<string, unknown[]>) =>
  fc.oneof(...Object.entries(groups).map(([shape, values]) => fc.constantFrom(...values).map((value) => new Tagged(shape, value))));

/** Any hostile string: the list above, or fast-check's strings of any code unit (lone surrogates included). */
export const hostileString = fc.oneof(
  { weight: 4, arbitrary: tagged(HOSTILE_STRINGS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map((s) => new Tagged('random Unicode', s)) },
);
const hostileNumber = tagged(HOSTILE_NUMBERS);
const wrongType = tagged(WRONG_TYPES);

function typeOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null');
  return schema.type ?? (schema.enum ? typeof schema.enum[0] : schema.const !== undefined ? typeof schema.const : undefined);
}

/**
 * A generator of values for `schema` (a zod schema's JSON Schema, `root` holding its $defs): mostly plausible values, each
 * field hostile one time in `1 + plausibleWeight`; `depth` stops recursion.
 */
export function valuesFor(schema: Schema, root: Schema, name = '', depth = 0, plausibleWeight = 3): fc.Arbitrary<unknown> {
  if (schema.$ref) return valuesFor(root.$defs?.[schema.$ref.replace('#/$defs/', '')] ?? {}, root, name, depth, plausibleWeight);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((alternative) => valuesFor(alternative, root, name, depth, plausibleWeight)));
  const hostile = fc.oneof(hostileForType(schema, root, depth), wrongType);
  return fc.oneof({ weight: plausibleWeight, arbitrary: plausible(schema, root, name, depth) }, { weight: 1, arbitrary: hostile });
}

function plausible(schema: Schema, root: Schema, name: string, depth: number): fc.Arbitrary<unknown> {
  if (name in PLAUSIBLE) return fc.constant(PLAUSIBLE[name]);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  switch (typeOf(schema)) {
    case 'object':
      // About one field in the object hostile: a body with one bad field among good ones gets deepest.
      return objectOf(schema, root, depth, Object.keys(schema.properties ?? {}).length);
    case 'array':
      return depth > 3 ? fc.constant([]) : fc.array(valuesFor(schema.items ?? {}, root, '', depth + 1), { minLength: 1, maxLength: 3 });
    case 'number':
    case 'integer':
      return fc.integer({ min: Math.max(1, schema.minimum ?? 1), max: Math.min(5, schema.maximum ?? 5) });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.constantFrom('x', 'Abuse Test', 'a1');
  }
}

function hostileForType(schema: Schema, root: Schema, depth: number): fc.Arbitrary<unknown> {
  switch (typeOf(schema)) {
    case 'number':
    case 'integer':
      return fc.oneof(hostileNumber, tagged({ 'number as string': HOSTILE_STRINGS['number as string'], 'NaN-ish string': HOSTILE_STRINGS['NaN-ish string'] }));
    case 'boolean':
      return tagged({ 'boolean as text': ['true', 'false', 1, 0, 'yes'] });
    case 'array':
      return fc.oneof(
        tagged({ 'huge array': [Array.from({ length: 20_000 }, (_, i) => String(i))] }),
        depth > 3 ? fc.constant(new Tagged('empty array', [])) : fc.array(hostileString, { minLength: 1, maxLength: 5 }),
      );
    case 'object':
      return depth > 3 ? wrongType : objectOf(schema, root, depth, 0); // every field hostile
    default:
      return hostileString;
  }
}

/** A value of `arbitrary` one time in `times`, else null. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>, times: number) => fc.oneof({ weight: times - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });

/**
 * An object of its properties, each hostile one time in `1 + plausibleWeight`; one time in 6 a field left out (at the
 * top level), one time in 8 a `__proto__` key (Fastify refuses a body with one).
 */
function objectOf(schema: Schema, root: Schema, depth: number, plausibleWeight: number): fc.Arbitrary<unknown> {
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([key, property]) => [key, valuesFor(property, root, key, depth + 1, plausibleWeight)]),
  );
  const keys = Object.keys(properties);
  const dropped = keys.length > 0 ? rarely(fc.constantFrom(...keys), 6) : fc.constant(null);
  return fc.tuple(fc.record(properties), dropped, rarely(hostileString, 8)).map(([record, drop, extra]) => {
    const object: Record<string, unknown> = { ...record };
    if (drop !== null && depth === 0) object[drop] = new Tagged('missing field', undefined);
    if (extra) Object.defineProperty(object, '__proto__', { value: new Tagged('__proto__ key', { isAdmin: true, extra }), enumerable: true });
    return object;
  });
}
