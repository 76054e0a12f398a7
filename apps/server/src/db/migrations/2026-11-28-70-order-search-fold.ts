import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The letters the order search folds to plain ASCII (lower case) so that 'nunez' finds 'Núñez': Latin-1 and Latin
 * Extended-A/B letters with diacritics by their base letter, and the few without a decomposition (ø đ ł ı ħ ŧ ß) by
 * the letter they read as. One character to one, as PostgreSQL's translate() maps. Kept here as written: an index
 * made with them must be searched with them (orders/order-search.ts folds the search the same way).
 */
export const FOLD_FROM =
  'ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíîïñòóôõöùúûüýÿĀāĂăĄąĆćĈĉĊċČčĎďĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĨĩĪīĬĭĮįİĴĵĶķĹĺĻļĽľŃńŅņŇňŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžƠơƯưǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜǞǟǠǡǦǧǨǩǪǫǬǭǰǴǵǸǹǺǻȀȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘșȚțȞȟȦȧȨȩȪȫȬȭȮȯȰȱȲȳøØđĐłŁıħĦŧŦƀɨß';
export const FOLD_TO =
  'aaaaaaceeeeiiiinooooouuuuyaaaaaaceeeeiiiinooooouuuuyyaaaaaaccccccccddeeeeeeeeeegggggggghhiiiiiiiiijjkkllllllnnnnnnoooooorrrrrrssssssssttttuuuuuuuuuuuuwwyyyzzzzzzoouuaaiioouuuuuuuuuuaaaaggkkoooojggnnaaaaaaeeeeiiiioooorrrruuuusstthhaaeeooooooooyyooddllihhttbis';

/**
 * The order search finds names whatever their accents ('nunez' finds 'Núñez', 'Nunez' finds 'Nuñez').
 * - PostgreSQL: an immutable SQL function search_fold (translate() by the table above; the unaccent extension is not
 *   always there to create), applied to the lowered text in the GIN index of the search's trigrams, which is made
 *   again with it, and to the text the search tests.
 * - SQLite: the FTS5 table is made again with the trigram tokenizer's remove_diacritics, and filled from the orders;
 *   the search's test folds the names with a function each connection registers (db/database.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create function search_fold(body text) returns text language sql immutable strict parallel safe
      as $$ select pg_catalog.translate(body, ${sql.lit(FOLD_FROM)}, ${sql.lit(FOLD_TO)}) $$`.execute(db);
    await sql`set local maintenance_work_mem = '256MB'`.execute(db);
    await db.schema.dropIndex('orders_search_keys').execute();
    await sql`create index orders_search_keys on orders using gin (order_search_keys(user_id, search_fold(lower(left(id, 8) || chr(10) || from_name || chr(10) || to_name || chr(10) || coalesce(tracking, '')))))`.execute(
      db,
    );
    return;
  }
  await remake(db, 'trigram remove_diacritics 1');
}

async function remake(db: Kysely<any>, tokenize: string): Promise<void> {
  await sql`drop table orders_search`.execute(db);
  await sql`create virtual table orders_search using fts5(body, content='', contentless_delete=1, tokenize=${sql.lit(tokenize)}, detail=none)`.execute(db);
  // Every order, in rowid order (FTS5 writes a sorted run at once); the orders noted meanwhile are indexed again later.
  await sql`insert into orders_search(rowid, body)
    select u.rowid * 4294967296 + o.rowid, substr(o.id, 1, 8) || char(10) || o.from_name || char(10) || o.to_name || char(10) || coalesce(o.tracking, '')
    from orders o join users u on u.id = o.user_id order by 1`.execute(db);
  await sql`insert into orders_search(orders_search) values ('optimize')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await db.schema.dropIndex('orders_search_keys').execute();
    await sql`create index orders_search_keys on orders using gin (order_search_keys(user_id, lower(left(id, 8) || chr(10) || from_name || chr(10) || to_name || chr(10) || coalesce(tracking, ''))))`.execute(
      db,
    );
    await sql`drop function search_fold(text)`.execute(db);
    return;
  }
  await remake(db, 'trigram');
}
