import { z } from 'zod';

/** Every error answer of the API has this shape. */
export const errorResponse = z.object({ message: z.string() });
export type ErrorResponse = z.infer<typeof errorResponse>;

export const messageResponse = z.object({ message: z.string() });
export type MessageResponse = z.infer<typeof messageResponse>;

/**
 * An id the API names a record by (order, address, bulk order, job): printable ASCII without spaces, as every id the
 * shop makes is. Anything else is no id of ours, answered 400 before it reaches a query (PostgreSQL refuses a NUL in
 * text with an error of its own).
 */
export const idText = (max = 64) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[\x21-\x7e]+$/, 'Not a valid id');

export const idParams = z.object({ id: idText() });

/** A dollar amount given by a person or a program: a number (or its text) with at most two decimals. */
export const dollars = (label: string) =>
  z.coerce
    .number({ error: `${label} must be a number` })
    .refine((n) => Number.isFinite(n) && Math.abs(n * 100 - Math.round(n * 100)) < 1e-6, `${label} must have at most 2 decimal places`);

/** Money crosses the API as dollars with two decimals; storage and arithmetic use integer cents. */
export const centsToDollars = (cents: number): number => Math.round(cents) / 100;
export const dollarsToCents = (dollars: number): number => Math.round(dollars * 100);
export const formatDollars = (dollars: number): string => dollars.toFixed(2);

export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(10),
});

/**
 * What no text the API takes may hold: control codes other than tab and line breaks (C0, DEL, C1), a lone UTF-16
 * surrogate (half a character: '\ud800'), and the noncharacters (U+FFFE, U+FFFF, U+FDD0-U+FDEF and the last two of
 * every plane). Code points not yet assigned are let through: which they are depends on the Unicode version of the
 * reader, and a new emoji is no harm.
 */
export const UNREADABLE_TEXT = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\p{Cs}\p{Noncharacter_Code_Point}]/u;
/**
 * What a line a label, invoice or address prints may hold beside that: no tab or line break either, and no bidi
 * embedding, override or isolate control (U+202A-U+202E, U+2066-U+2069), which make text print in another order than it
 * was typed and checked.
 */
export const PRINTABLE_LINE = /^[^\p{Cc}\p{Cs}\p{Noncharacter_Code_Point}\u202A-\u202E\u2066-\u2069]*$/u;
export const unprintableMessage = (label: string) => `${label} holds characters that cannot be printed`;

/**
 * A string field whose errors name it: 'X is required' when absent, 'X must be text' when of another type, 'X holds
 * characters that cannot be printed' with any UNREADABLE_TEXT.
 */
export const stringField = (label: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined || issue.input === null ? `${label} is required` : `${label} must be text`) })
    // abort: the field's later checks (PRINTABLE_LINE's) do not name it again.
    .refine((s) => !UNREADABLE_TEXT.test(s), { message: unprintableMessage(label), abort: true });

/** A required text field: trimmed, not empty, bounded. */
export const requiredText = (label: string, max = 200) =>
  stringField(label).trim().min(1, `${label} is required`).max(max, `${label} must be at most ${max} characters`);

/** A line of text that is printed (a name, an address line): trimmed, bounded, PRINTABLE_LINE. May be empty. */
export const printedLine = (label: string, max: number) =>
  stringField(label).trim().max(max, `${label} must be at most ${max} characters`).regex(PRINTABLE_LINE, unprintableMessage(label));
