import { FOLD_FROM, FOLD_TO } from './migrations/2026-11-28-70-order-search-fold.ts';

const FOLDED = new Map(Array.from(FOLD_FROM, (c, i) => [c, FOLD_TO[i]]));

/**
 * Text as the order search compares it: letters with diacritics to their base letter ('Núñez' -> 'nunez'), then lower
 * case. The same table as PostgreSQL's search_fold (the 2026-11-28-70-order-search-fold migration); SQLite's
 * connections register it as search_fold (db/database.ts).
 */
export function searchFold(text: string): string {
  let out = '';
  for (const c of text) out += FOLDED.get(c) ?? c;
  return out.toLowerCase();
}
