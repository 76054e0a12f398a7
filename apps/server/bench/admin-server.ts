// The app on the embedded defaults (SQLite file) with a shop's history: BENCH_ADMIN_USERS (10,000)
// customers, BENCH_ORDERS (100,000) orders spread over BENCH_ADMIN_DAYS (90) days, each with its
// ledger rows (deposits with bonuses, charges, refunds of cancelled orders), so the console's
// overview reads tables of a realistic size. Started by bench/admin.ts in its own process.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDatabase, migrateToLatest } from '../src/db/database.ts';
import type { LedgerTable, OrdersTable } from '../src/db/schema.ts';
import { newId, sha256Hex } from '../src/lib/ids.ts';
import { readOrCreateSecret } from '../src/lib/secrets.ts';
import { createTokenService } from '../src/modules/auth/tokens.ts';
import { insertOrders } from '../src/modules/orders/repository.ts';
import { seedCatalog } from '../src/modules/catalog/seed-catalog.ts';
import { RECIPIENT, SENDER } from '../test/sample-addresses.ts';
import { knob } from './smoke.ts';

const USERS = knob('BENCH_ADMIN_USERS', 10_000, 100);
const ORDERS = knob('BENCH_ORDERS', 100_000, 1000);
const DAYS = knob('BENCH_ADMIN_DAYS', 90, 3);
const DAY_MS = 86_400_000;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-bench-admin-'));
const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', WEB_DIST: path.join(dataDir, 'no-web'), LABEL_RENDER_THREADS: '0' });
const db = createDatabase({ sqliteFile: path.join(dataDir, 'portal.sqlite') });
await migrateToLatest(db);
await seedCatalog(db);

const started = Date.now();
const now = Date.now();
const first = now - DAYS * DAY_MS;
/** A time in the window, spread evenly by position i of n (the newest last). */
const at = (i: number, n: number) => new Date(first + Math.floor(((i + 0.5) / n) * (now - first))).toISOString();
// A fixed pseudo-random sequence, so every run seeds the same shop.
let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;

const users = Array.from({ length: USERS }, (_, i) => ({ id: newId(), i, balance: 0, createdAt: new Date(first - DAY_MS).toISOString() }));
const ledger: LedgerTable[] = [];
const entry = (userId: string, amount: number, kind: string, reference: string | null, createdAt: string) => {
  const user = users[userIndex.get(userId)!];
  user.balance += amount;
  ledger.push({ id: newId(), user_id: userId, amount_cents: amount, balance_after_cents: user.balance, kind, reference, note: '', created_at: createdAt });
};
const userIndex = new Map(users.map((u, i) => [u.id, i]));

// Every customer opens with a deposit before the window; a fifth of the orders' value comes in as deposits later.
const types = await db.selectFrom('label_types').select(['id', 'uid', 'name']).execute();
/** 3% refused and refunded; the newest few still with the provider. */
const statusOf = (i: number): OrdersTable['status'] => (i >= ORDERS - 20 ? 'processing' : random() < 0.03 ? 'cancelled' : 'completed');
for (const user of users) entry(user.id, 150_000, 'deposit', `open-${user.id}`, user.createdAt);

const batches: OrdersTable[][] = [];
let batch: OrdersTable[] = [];
for (let i = 0; i < ORDERS; i++) {
  const user = users[Math.floor(random() * USERS)];
  const type = types[i % types.length];
  const status = statusOf(i);
  const price = 450 + Math.floor(random() * 3000);
  const createdAt = at(i, ORDERS);
  const id = newId();
  entry(user.id, -price, 'order_charge', id, createdAt);
  if (status === 'cancelled') entry(user.id, price, 'order_refund', id, createdAt);
  if (i % 5 === 0) {
    const invoice = newId();
    const amount = 2_000 + Math.floor(random() * 20_000);
    entry(user.id, amount, 'deposit', invoice, createdAt);
    if (amount > 20_000) entry(user.id, Math.floor(amount * 0.02), 'deposit_bonus', invoice, createdAt);
  }
  batch.push({
    id,
    user_id: user.id,
    label_type_id: type.id,
    label_type_uid: type.uid,
    label_type_name: type.name,
    design: type.uid === 'priority' ? 'normal' : null,
    weight: 2,
    length: null,
    width: null,
    height: null,
    from_name: `Sender ${i}`,
    from_company: '',
    from_street: SENDER.street,
    from_street2: '',
    from_city: SENDER.city,
    from_state: SENDER.state,
    from_zip: SENDER.zip,
    from_country: SENDER.country,
    from_phone: '',
    to_name: `Receiver ${i}`,
    to_company: '',
    to_street: RECIPIENT.street,
    to_street2: '',
    to_city: RECIPIENT.city,
    to_state: RECIPIENT.state,
    to_zip: RECIPIENT.zip,
    to_country: RECIPIENT.country,
    to_phone: '',
    price_cents: price,
    status,
    tracking: status === 'completed' ? `9405599999${String(i).padStart(12, '0')}` : null,
    pdf_key: null,
    provider: 'sandbox',
    provider_ref: null,
    note: status === 'cancelled' ? 'refused by the carrier' : null,
    created_at: createdAt,
    updated_at: createdAt,
    bulk_order_id: null,
    bulk_row: null,
    claimed_until: null,
    claims: 0,
    upstream_ref: null,
    upstream_asked_at: null,
    upstream_cost_cents: null,
    upstream_carrier: null,
    upstream_service: null,
    tracking_status: null,
    refund_status: null,
    refund_note: null,
    refund_requested_at: null,
    refund_updated_at: null,
    refund_due_at: null,
    refund_claims: 0,
    scan_form_id: null,
    pickup_id: null,
    refund_upstream: null,
    refund_auto: 0,
    return_of: null,
    return_order_id: null,
    quote_id: null,
    upstream_rate_id: null,
    ship_date: null,
    reference1: '',
    reference2: '',
    tracking_token: null,
    insured_cents: null,
    insurance_cents: 0,
    insurance_cost_cents: null,
    is_return: 0,
    to_email: null,
  });
  if (batch.length === 500) batches.push(batch.splice(0));
}
if (batch.length) batches.push(batch);

await db.transaction().execute(async (trx) => {
  for (let i = 0; i < users.length; i += 500) {
    await trx
      .insertInto('users')
      .values(
        users.slice(i, i + 500).map((u) => ({
          id: u.id,
          username: `Customer ${u.i}`,
          tg_id: `customer_${u.i}`,
          tg_id_lower: `customer_${u.i}`,
          password_hash: 'not-used',
          email: `customer${u.i}@example.com`,
          email_verified: 1,
          balance_cents: u.balance,
          api_key_sealed: `lp_bench_${u.i}`,
          api_key_hash: sha256Hex(`lp_bench_${u.i}`),
          token_version: 0,
          created_at: u.createdAt,
          // Customers last seen at some point of the window.
          last_active_at: at(Math.floor(random() * 1000), 1000),
        })),
      )
      .execute();
  }
  // In the repository's chunks: an order's columns times its rows stay under SQLite's bound on an insert's values.
  for (const rows of batches) await insertOrders(trx, rows);
  for (let i = 0; i < ledger.length; i += 2000)
    await trx
      .insertInto('ledger')
      .values(ledger.slice(i, i + 2000))
      .execute();
});
const adminId = newId();
await db
  .insertInto('users')
  .values({
    id: adminId,
    username: 'Operator',
    tg_id: 'operator',
    tg_id_lower: 'operator',
    password_hash: 'not-used',
    email: null,
    email_verified: 0,
    balance_cents: 0,
    api_key_sealed: 'lp_bench_operator',
    api_key_hash: sha256Hex('lp_bench_operator'),
    token_version: 0,
    created_at: new Date(now).toISOString(),
    role: 'admin',
    last_active_at: new Date(now).toISOString(),
  })
  .execute();
await db.destroy();
const seedSeconds = (Date.now() - started) / 1000;

const app = await buildApp(config, { logger: false });
app.get('/bench/bare', async () => ({ ok: true }));
await app.listen({ port: 0, host: '127.0.0.1' });
const token = await createTokenService(readOrCreateSecret(dataDir, 'jwt-secret', undefined), 24).issue({ userId: adminId, tokenVersion: 0 });
const port = (app.server.address() as { port: number }).port;
process.send?.({ port, token, seedSeconds, users: USERS, orders: ORDERS, ledgerRows: ledger.length, days: DAYS });

process.on('message', (message) => {
  if (message === 'stop') void stop();
});

async function stop() {
  try {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  } catch (error) {
    console.error('the bench server did not stop cleanly', error);
    process.exit(1);
  }
}
