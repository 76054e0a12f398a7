import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFedexOrderBody } from '@portal/contract';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import type { AuditHook } from '../../lib/audit.ts';
import { createLocalFileStore } from '../../providers/storage/file-store.ts';
import { balanceCents, customer, fedexPayload, labelPdf, type Customer } from '../../../test/fedex-fixtures.ts';
import { createFedexService, isPdf, type FedexService } from './service.ts';

// What the console's routes cannot show: the audit row is written in the change's transaction, so
// when it fails nothing of the change stays. The service runs on the app's own database and files.

const PRICE_CENTS = 2500;
const failingAudit: AuditHook = async () => {
  throw new Error('audit log unavailable');
};

let t: TestApp;
let fedex: FedexService;
let user: Customer;
const filesRoot = () => path.join(t.config.dataDir, 'files');
beforeAll(async () => {
  t = await startTestApp();
  fedex = createFedexService({
    db: t.db,
    files: createLocalFileStore(filesRoot()),
    log: pino({ level: 'silent' }),
    priceCents: async () => PRICE_CENTS,
    linkSecret: 'test-secret',
  });
  user = await customer(t.app, t.db, 10 * PRICE_CENTS);
});
afterAll(() => t.close());

const place = async () => (await fedex.create(user.userId, createFedexOrderBody.parse(fedexPayload()))).orderId;
/** Label files kept for an order. */
const labelFilesOf = (id: string) => {
  const dir = path.join(filesRoot(), 'fedex');
  return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).filter((f) => String(f).includes(id)) : [];
};
const rowOf = (id: string) => t.db.selectFrom('fedex_orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('the PDF check', () => {
  it('takes a real PDF and refuses anything else, whatever its name', async () => {
    expect(await isPdf(await labelPdf())).toBe(true);
    expect(await isPdf(Buffer.from('this is not a pdf at all'))).toBe(false);
    expect(await isPdf(Buffer.from('%PDF-1.7\n%garbage that no reader can parse\n'))).toBe(false);
    expect(await isPdf(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'))).toBe(false);
    expect(await isPdf(Buffer.alloc(0))).toBe(false);
  });
});

describe('an audit row that cannot be written', () => {
  it('leaves a completed order pending and keeps no label file', async () => {
    const id = await place();
    await expect(fedex.complete(id, { label: await labelPdf(), note: 'done' }, failingAudit)).rejects.toThrow('audit log unavailable');
    expect(await rowOf(id)).toMatchObject({ status: 'pending', file_key: null, note: null });
    expect(labelFilesOf(id)).toEqual([]);
  });

  it('leaves a cancelled order pending and refunds nothing', async () => {
    const id = await place();
    const before = await balanceCents(t.db, user.userId);
    await expect(fedex.cancel(id, 'no', failingAudit)).rejects.toThrow('audit log unavailable');
    expect(await rowOf(id)).toMatchObject({ status: 'pending', note: null });
    expect(await balanceCents(t.db, user.userId)).toBe(before);
    expect(await t.db.selectFrom('ledger').select('kind').where('reference', '=', id).execute()).toEqual([{ kind: 'fedex_charge' }]);
  });
});
