import { z } from 'zod';

/** Every error answer of the API has this shape. */
export const errorResponse = z.object({ message: z.string() });
export type ErrorResponse = z.infer<typeof errorResponse>;

export const messageResponse = z.object({ message: z.string() });
export type MessageResponse = z.infer<typeof messageResponse>;

export const idParams = z.object({ id: z.string().min(1).max(64) });

/** Money crosses the API as dollars with two decimals; storage and arithmetic use integer cents. */
export const centsToDollars = (cents: number): number => Math.round(cents) / 100;
export const dollarsToCents = (dollars: number): number => Math.round(dollars * 100);
export const formatDollars = (dollars: number): string => dollars.toFixed(2);

export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(10),
});

/** A string field whose errors name it: 'X is required' when absent, 'X must be text' when of another type. */
export const stringField = (label: string) =>
  z.string({ error: (issue) => (issue.input === undefined || issue.input === null ? `${label} is required` : `${label} must be text`) });

/** A required text field: trimmed, not empty, bounded. */
export const requiredText = (label: string, max = 200) =>
  stringField(label).trim().min(1, `${label} is required`).max(max, `${label} must be at most ${max} characters`);
