import { sql, type SqlBool } from 'kysely';

/** Escapes LIKE's own characters (% _ \), so what a user types matches itself. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/** `lower(column) like %term%`: case-insensitive on both dialects (PostgreSQL's like is case-sensitive). */
export const containsText = (column: string, term: string) => sql<SqlBool>`lower(${sql.ref(column)}) like ${`%${escapeLike(term.toLowerCase())}%`} escape '\\'`;
