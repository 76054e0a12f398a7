import type { DbOrTrx, Trx } from '../../db/database.ts';
import type { TelegramAccountsTable, TelegramLinkTokensTable, TelegramMessagesTable } from '../../db/schema.ts';

export type TelegramAccountRow = TelegramAccountsTable;
export type LinkTokenRow = TelegramLinkTokensTable;
export type TelegramMessageRow = TelegramMessagesTable;

// ---- accounts (the linked chat and the message choices) ----

export const findAccount = (db: DbOrTrx, userId: string) => db.selectFrom('telegram_accounts').selectAll().where('user_id', '=', userId).executeTakeFirst();

export const findAccounts = (db: DbOrTrx, userIds: string[]) => db.selectFrom('telegram_accounts').selectAll().where('user_id', 'in', userIds).execute();

export const findAccountByChat = (db: DbOrTrx, chatId: string) =>
  db.selectFrom('telegram_accounts').selectAll().where('chat_id', '=', chatId).executeTakeFirst();

/** Links the chat to the user: another account that held the chat lets it go, then the user's row points to it. */
export async function linkChat(trx: Trx, link: { userId: string; chatId: string; chatUsername: string | null; shopUrl: string; at: string }): Promise<void> {
  await trx
    .updateTable('telegram_accounts')
    .set({ chat_id: null, chat_username: null, linked_at: null, updated_at: link.at })
    .where('chat_id', '=', link.chatId)
    .where('user_id', '!=', link.userId)
    .execute();
  const linked = { chat_id: link.chatId, chat_username: link.chatUsername, shop_url: link.shopUrl, linked_at: link.at, updated_at: link.at };
  await trx
    .insertInto('telegram_accounts')
    .values({ user_id: link.userId, ...linked, muted: '[]', created_at: link.at })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(linked))
    .execute();
}

/** Unlinks the user's chat (only this chat, when given); false when there was none. */
export async function unlink(db: DbOrTrx, userId: string, at: string, chatId?: string): Promise<boolean> {
  let query = db
    .updateTable('telegram_accounts')
    .set({ chat_id: null, chat_username: null, linked_at: null, updated_at: at })
    .where('user_id', '=', userId)
    .where('chat_id', 'is not', null);
  if (chatId !== undefined) query = query.where('chat_id', '=', chatId);
  return Number((await query.executeTakeFirst()).numUpdatedRows) === 1;
}

/** Saves which kinds of message are off (a JSON array), making the row when the account has none. */
export async function saveMuted(db: DbOrTrx, userId: string, muted: string, at: string): Promise<void> {
  await db
    .insertInto('telegram_accounts')
    .values({ user_id: userId, chat_id: null, chat_username: null, shop_url: null, muted, linked_at: null, created_at: at, updated_at: at })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ muted, updated_at: at }))
    .execute();
}

/** Name, Telegram username, balance and state of an account, for the bot's answers. */
export const findUser = (db: DbOrTrx, userId: string) =>
  db.selectFrom('users').select(['id', 'tg_id', 'balance_cents', 'disabled_at']).where('id', '=', userId).executeTakeFirst();

// ---- one-time link tokens ----

export const insertLinkToken = (db: DbOrTrx, row: LinkTokenRow) => db.insertInto('telegram_link_tokens').values(row).execute();

export const findLinkToken = (db: DbOrTrx, tokenHash: string) =>
  db.selectFrom('telegram_link_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();

/** Uses a token once: false when it was used (or expired) meanwhile. */
export async function useLinkToken(trx: Trx, tokenHash: string, at: string): Promise<boolean> {
  const result = await trx
    .updateTable('telegram_link_tokens')
    .set({ used_at: at })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Tokens past their time are kept a day (so a late click still hears 'expired'), then deleted. */
export const deleteOldLinkTokens = (db: DbOrTrx, before: string) => db.deleteFrom('telegram_link_tokens').where('expires_at', '<', before).execute();

// ---- messages ----

/** Inserts messages, each once per chat and event: answers the ids of those inserted (an event recorded before keeps its message). */
export async function insertMessages(db: DbOrTrx, rows: TelegramMessageRow[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const inserted = await db
    .insertInto('telegram_messages')
    .values(rows)
    .onConflict((oc) => oc.columns(['chat_id', 'event_id']).doNothing())
    .returning('id')
    .execute();
  return new Set(inserted.map((row) => row.id));
}

/** Inserts a message; false when this event was already recorded for this chat. */
export const insertMessage = async (db: DbOrTrx, row: TelegramMessageRow): Promise<boolean> => (await insertMessages(db, [row])).size === 1;

/** The messages of these chats' events not tried yet (recorded before, perhaps never queued). */
export const untriedMessages = (db: DbOrTrx, chatIds: string[], eventIds: string[]) =>
  db
    .selectFrom('telegram_messages')
    .select('id')
    .where('chat_id', 'in', chatIds)
    .where('event_id', 'in', eventIds)
    .where('status', '=', 'pending')
    .where('attempts', '=', 0)
    .execute();

export const findMessage = (db: DbOrTrx, id: string) => db.selectFrom('telegram_messages').selectAll().where('id', '=', id).executeTakeFirst();

/** Whether the message is done with: sent, failed for good, or dropped. */
export const isDone = (message: Pick<TelegramMessageRow, 'status'>) => message.status === 'sent' || message.status === 'failed' || message.status === 'dropped';

/** Whether a run may take the message: it waits to be sent, or the run that took it died (its claim is over). */
export const isClaimable = (message: Pick<TelegramMessageRow, 'status' | 'claimed_until'>, now: string) =>
  message.status === 'pending' ||
  message.status === 'retrying' ||
  (message.status === 'sending' && (message.claimed_until === null || message.claimed_until <= now));

/** Takes a message to send it, for this run alone until `until`: false when another run holds it or it is done. */
export async function claimMessage(db: DbOrTrx, id: string, now: string, until: string): Promise<boolean> {
  const result = await db
    .updateTable('telegram_messages')
    .set({ status: 'sending', claimed_until: until, updated_at: now })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('status', 'in', ['pending', 'retrying']),
        eb.and([eb('status', '=', 'sending'), eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)])]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Messages whose sender died while sending: taken, and the claim over. */
export const stalledMessages = (db: DbOrTrx, now: string, limit: number) =>
  db
    .selectFrom('telegram_messages')
    .select('id')
    .where('status', '=', 'sending')
    .where('claimed_until', '<=', now)
    .orderBy('claimed_until')
    .limit(limit)
    .execute();

export const updateMessage = (db: DbOrTrx, id: string, changes: Partial<Omit<TelegramMessageRow, 'id' | 'user_id' | 'chat_id' | 'event_id'>>) =>
  db.updateTable('telegram_messages').set(changes).where('id', '=', id).execute();

/** Messages never tried that were recorded before `before` (their process stopped before queueing them). */
export const unqueuedMessages = (db: DbOrTrx, before: string, limit: number) =>
  db
    .selectFrom('telegram_messages')
    .select('id')
    .where('status', '=', 'pending')
    .where('attempts', '=', 0)
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit)
    .execute();
