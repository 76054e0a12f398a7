// What the benchmarks share: an order's parties and body, a CSV file, its multipart form, a funded user, a process's memory.
import fs from 'node:fs';
import { CSV_COLUMNS } from '@portal/contract';
import type { Db } from '../src/db/database.ts';
import { newId, sha256Hex } from '../src/lib/ids.ts';
import { changeBalance } from '../src/modules/billing/ledger.ts';
import { orderParties } from '../test/sample-addresses.ts';

/** The sample sender and receiver. */
export const ORDER_PARTIES = { ...orderParties(), FromName: 'Bench Sender', ToName: 'Bench Receiver' };
/** The body of POST /order/create (web) and /order/create-order (API): a 2 lb Priority label. */
export const CREATE_ORDER_BODY = JSON.stringify({ labelType: 'priority', design: 'normal', Weight: 2, ...ORDER_PARTIES });
/** POST /order/rates of the same package, addresses whole (so an order of it buys on the quote's shipment). */
export const RATES_BODY = JSON.stringify({ Weight: 2, ...ORDER_PARTIES });

/** A file of `rows` valid rows (priority, 1-20 lb), about 200 bytes a row. */
export function csvFile(rows: number, oneSender = false): Buffer {
  const lines = [CSV_COLUMNS.join(',')];
  for (let i = 1; i <= rows; i++) {
    const cells: Record<string, string> = {
      ...ORDER_PARTIES,
      FromName: oneSender ? 'Bench Sender' : `Bench Sender ${i}`,
      FromCompany: '"Bench, Inc."',
      FromStreet2: 'Suite 100',
      ToName: `Receiver ${i}`,
      ToStreet: `${i} Oak Avenue`,
      Weight: String(1 + (i % 20)),
      Reference: `B-${i}`,
    };
    lines.push(CSV_COLUMNS.map((c) => cells[c] ?? '').join(','));
  }
  return Buffer.from(lines.join('\r\n') + '\r\n');
}

export async function multipart(fields: Record<string, string>, csv: Buffer): Promise<{ payload: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('csv', new Blob([csv as BlobPart], { type: 'text/csv' }), 'orders.csv');
  const request = new Request('http://bench.local/', { method: 'POST', body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

export async function seedUser(db: Db): Promise<string> {
  const id = newId();
  await db
    .insertInto('users')
    .values({
      id,
      username: 'Bench',
      tg_id: 'bench_bulk',
      tg_id_lower: 'bench_bulk',
      password_hash: 'not-used',
      email: null,
      email_verified: 0,
      balance_cents: 0,
      api_key_sealed: 'lp_bench_bulk',
      api_key_hash: sha256Hex('lp_bench_bulk'),
      token_version: 0,
      created_at: new Date().toISOString(),
    })
    .execute();
  await db
    .transaction()
    .execute((trx) => changeBalance(trx, { userId: id, amountCents: 1_000_000_000, kind: 'adjustment', reference: null, note: 'bench funding' }));
  return id;
}

export const rssOf = (pid: number | 'self', field: 'VmRSS' | 'VmHWM') => {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
};
export const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
