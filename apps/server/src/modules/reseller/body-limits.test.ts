import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BULK_BODY_MAX_BYTES, BULK_MAX_ROWS, CITY_MAX, COMPANY_MAX, NAME_MAX, STREET_MAX, referenceMaxFor, shopDay } from '@portal/contract';
import { startTestApp, type TestApp } from '../../../test/harness.ts';
import { JSON_TOO_DEEP, JSON_TOO_WIDE } from '../../lib/json-body.ts';
import { bulkRow, callApi, labelFields, resellerUser } from '../../../test/reseller-fixtures.ts';

const json = { 'content-type': 'application/json' };
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
// Every text field at its longest, in two-byte letters: the largest row a reseller may send.
const longestRow = (i: number) =>
  bulkRow(i, {
    FromName: 'é'.repeat(NAME_MAX),
    FromCompany: 'é'.repeat(COMPANY_MAX),
    FromStreet: 'é'.repeat(STREET_MAX),
    FromStreet2: 'é'.repeat(STREET_MAX),
    FromCity: 'é'.repeat(CITY_MAX),
    ToName: 'é'.repeat(NAME_MAX),
    ToCompany: 'é'.repeat(COMPANY_MAX),
    ToStreet: 'é'.repeat(STREET_MAX),
    ToStreet2: 'é'.repeat(STREET_MAX),
    ToCity: 'é'.repeat(CITY_MAX),
    // The reference lines at the longest a USPS label (uspsv9 below) prints.
    Reference: 'é'.repeat(referenceMaxFor('uspsv9')),
    Reference2: 'é'.repeat(referenceMaxFor('uspsv9')),
    ShipDate: shopDay(7),
  });

describe('JSON bodies are bounded before they are parsed', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const ledgerOf = (userId: string) => t.db.selectFrom('ledger').select('kind').where('user_id', '=', userId).where('kind', '!=', 'adjustment').execute();

  it('answers 400 to 7.9 MiB of nested arrays sent as a bulk order, without parsing them', async () => {
    const user = await resellerUser(t.app, t.db, 50_000);
    const levels = Math.floor((7.9 * 1024 * 1024) / 2);
    const res = await callApi(t.app, user.apiKey, 'POST', '/order/create-bulk-order', {
      headers: json,
      payload: nested(levels),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ type: 'error', message: JSON_TOO_DEEP });
    const wide = await callApi(t.app, user.apiKey, 'POST', '/order/create-bulk-order', {
      headers: json,
      payload: JSON.stringify({ labelType: 'uspsv9', data: Array.from({ length: 20_001 }, () => 0) }),
    });
    expect(wide.statusCode).toBe(400);
    expect(wide.json().message).toBe(JSON_TOO_WIDE);
    // The web's calls have the same parser.
    const web = await t.app.inject({ method: 'POST', url: '/api/v1/order/create', headers: { ...user.headers, ...json }, payload: `{"a":${'['.repeat(20)}` });
    expect(web.statusCode).toBe(400);
    expect(web.json().message).toBe(JSON_TOO_DEEP);
    // So has the scope of duplicate, which takes an empty JSON body as none.
    const duplicate = await t.app.inject({ method: 'POST', url: '/api/v1/order/duplicate/none', headers: { ...user.headers, ...json }, payload: nested(20) });
    expect(duplicate.statusCode).toBe(400);
    expect(duplicate.json().message).toBe(JSON_TOO_DEEP);
    const empty = await t.app.inject({ method: 'POST', url: '/api/v1/order/duplicate/none', headers: { ...user.headers, ...json }, payload: '' });
    expect(empty.statusCode).toBe(404);
    expect(await ledgerOf(user.userId)).toEqual([]);
  });

  it('reads a bulk order of 5,000 rows with every field at its longest, and answers 413 to a body over its bound', async () => {
    const user = await resellerUser(t.app, t.db, 0);
    const payload = JSON.stringify({ labelType: 'uspsv9', data: Array.from({ length: BULK_MAX_ROWS }, (_, i) => longestRow(i + 1)) });
    expect(Buffer.byteLength(payload)).toBeGreaterThan(8 * 1024 * 1024);
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(BULK_BODY_MAX_BYTES);
    const res = await callApi(t.app, user.apiKey, 'POST', '/order/create-bulk-order', { headers: json, payload });
    // Parsed and every row checked: what stops it is the empty balance.
    expect(res.statusCode).toBe(402);
    const over = await callApi(t.app, user.apiKey, 'POST', '/order/create-bulk-order', {
      headers: json,
      payload: JSON.stringify({ labelType: 'uspsv9', data: [bulkRow(1, { Reference: 'x'.repeat(BULK_BODY_MAX_BYTES) })] }),
    });
    expect(over.statusCode).toBe(413);
    expect(await ledgerOf(user.userId)).toEqual([]);
  });

  it("keeps 1 MiB for the providers' webhooks, whose size is theirs: a 200 KiB event is read (and refused for its signature)", async () => {
    const event = JSON.stringify({
      id: 'evt_1',
      description: 'tracker.updated',
      result: { tracking_details: Array.from({ length: 400 }, () => ({ message: 'x'.repeat(500) })) },
    });
    expect(event.length).toBeGreaterThan(200 * 1024);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/labels/webhook/easypost', headers: json, payload: event });
    expect(res.statusCode).not.toBe(413);
    expect(res.statusCode).toBeLessThan(500);
  });

  it("answers 413 to a single order over the small calls' limit (64 KiB), and takes one under it", async () => {
    const user = await resellerUser(t.app, t.db, 50_000);
    const big = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { headers: json, payload: labelFields({ note: 'x'.repeat(65 * 1024) }) });
    expect(big.statusCode).toBe(413);
    const web = await t.app.inject({
      method: 'POST',
      url: '/api/v1/order/create',
      headers: user.headers,
      payload: labelFields({ note: 'x'.repeat(65 * 1024) }),
    });
    expect(web.statusCode).toBe(413);
    const ok = await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { headers: json, payload: labelFields({ note: 'x'.repeat(60 * 1024) }) });
    expect(ok.statusCode).toBe(200);
  });
});
