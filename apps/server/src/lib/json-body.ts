/**
 * The app's JSON body parser: the text's shape is bounded before JSON.parse builds anything. Every
 * body the contract accepts is at most 4 levels deep (a FedEx order's invoiceItems[i], a bulk order's
 * data[i]) and its largest list is a bulk order's 5,000 rows; a body nested deeper, or with a list or
 * object wider, than these bounds is a 400 without being parsed (8 MiB of `[[[[…` held the heap of the
 * whole process). __proto__ and constructor.prototype keys stay refused, as Fastify's own parser does.
 */
import secureJson from 'secure-json-parse';
import { BULK_MAX_ROWS } from '@portal/contract';
import { badRequest } from './http-errors.ts';

/**
 * Levels of arrays and objects inside each other: more than twice what any contract shape needs, and more than a
 * Telegram update's deepest (a replied-to message's inline keyboard button's login_url: 8).
 */
export const JSON_MAX_DEPTH = 10;
/** Entries of one array or object: a bulk order's rows with room to spare. */
export const JSON_MAX_ENTRIES = 2 * BULK_MAX_ROWS;

/**
 * The body limit of the calls outside providers make (EasyPost's, BTCPay's and Telegram's webhooks, each checked by
 * its signature or secret): their size is the provider's to choose, so they keep the 1 MiB every call had before.
 */
export const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024;

export const JSON_TOO_DEEP = `JSON nested deeper than ${JSON_MAX_DEPTH} levels`;
export const JSON_TOO_WIDE = `JSON array or object with more than ${JSON_MAX_ENTRIES.toLocaleString('en-US')} entries`;
// Fastify's own words for these two.
export const JSON_EMPTY = "Body cannot be empty when content-type is set to 'application/json'";
export const JSON_INVALID = "Body is not valid JSON but content-type is set to 'application/json'";

/**
 * Why the JSON text's shape is beyond the bounds (one pass, no allocation), or null when it is within
 * them. Brackets inside strings are text; the text's syntax is left to JSON.parse.
 */
export function jsonShapeProblem(text: string, maxDepth = JSON_MAX_DEPTH, maxEntries = JSON_MAX_ENTRIES): string | null {
  // Commas seen at each open level: an array or object of n entries has n - 1.
  const commas = new Uint32Array(maxDepth + 1);
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Skip the string: up to the next quote not escaped by a backslash.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 92 /* \ */) i++;
        else if (s === 34) break;
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > maxDepth) return JSON_TOO_DEEP;
      commas[depth] = 0;
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      if (depth > 0) depth--;
    } else if (c === 44 /* , */ && depth > 0) {
      if (++commas[depth] >= maxEntries) return JSON_TOO_WIDE;
    }
  }
  return null;
}

/** A JSON body as Fastify's parser reads it, after its shape passed jsonShapeProblem; every problem is a 400 that says what it is. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw badRequest(JSON_EMPTY);
  const problem = jsonShapeProblem(text);
  if (problem) throw badRequest(problem);
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw badRequest(JSON_INVALID);
  }
}
