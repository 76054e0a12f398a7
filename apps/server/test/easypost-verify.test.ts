import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS_CORRECTED, ADDRESS_NOT_CHECKED, ADDRESS_VERIFIED } from '@portal/contract';
import { engines, startTestApp, type TestApp } from './harness.ts';
import { fundedCustomer } from './customers.ts';
import { csvText, usRow, usRows, validateCsv } from './bulk-fixtures.ts';
import type { FakeEasyPost } from './fake-easypost.ts';
import { startEasyPostApp } from './easypost-fixtures.ts';

const typed = { name: 'John Receiver', company: '', street: '456 Oak Avenue', street2: '', city: 'Beverly Hills', state: 'CA', zip: '90210' };

describe.each(engines)('address verification through EasyPost (EASYPOST_VERIFY_ADDRESSES=true), on the %s queue', (engine) => {
  let t: TestApp;
  let fake: FakeEasyPost;
  let close = async () => {};

  beforeAll(async () => {
    ({ t, fake, close } = await startEasyPostApp(engine, 'easypost-verify', () => ({ EASYPOST_VERIFY_ADDRESSES: 'true' })));
  });
  afterAll(() => close());

  const verify = (headers: Record<string, string>, payload: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/address/verify', headers, payload });
  const verifyCalls = () => fake.requests.filter((r) => r === 'POST /v2/addresses/create_and_verify').length;

  it("answers the carrier's corrected lines, nothing when they are as typed, and its words for an address it does not know", async () => {
    const user = await fundedCustomer(t.app, 0, t.db);
    const corrected = await verify(user.headers, typed);
    expect(corrected.statusCode).toBe(200);
    // The fake answers the street in capitals, as EasyPost normalises it.
    expect(corrected.json()).toEqual({
      message: ADDRESS_CORRECTED,
      checked: true,
      verified: true,
      suggested: { street: '456 OAK AVENUE', street2: '', city: 'Beverly Hills', state: 'CA', zip: '90210' },
    });
    expect(await verify(user.headers, { ...typed, street: '456 OAK AVENUE' }).then((r) => r.json())).toEqual({
      message: ADDRESS_VERIFIED,
      checked: true,
      verified: true,
      suggested: null,
    });
    const unknown = (await verify(user.headers, { ...typed, street: fake.unverifiableStreet })).json();
    expect(unknown).toMatchObject({ checked: true, verified: false, suggested: null });
    expect(unknown.message).toContain('Unable to verify address');

    // A street is required; a visitor is not let in.
    expect((await verify(user.headers, { ...typed, street: '' })).statusCode).toBe(400);
    expect((await verify({}, typed)).statusCode).toBe(401);
  });

  it('the CSV validation names each row whose address the carrier does not know, asking once per distinct address', async () => {
    const user = await fundedCustomer(t.app, 0, t.db);
    const rows = [...usRows(3), usRow(4, { ToStreet: fake.unverifiableStreet }), usRow(5, { FromStreet: fake.unverifiableStreet })];
    const before = verifyCalls();
    const res = await validateCsv(t.app, user.headers, 'priority', csvText(rows));
    expect(res.statusCode).toBe(200);
    expect(res.json().unverified).toEqual([
      { row: 4, side: 'To', message: expect.stringContaining('Unable to verify address') },
      { row: 5, side: 'From', message: expect.stringContaining('Unable to verify address') },
    ]);
    // Senders: '123 Main Street' and the unknown one; receivers: five streets.
    expect(verifyCalls() - before).toBe(7);
    expect(res.json().totalOrders).toBe(5);
  });
});

describe('address verification off (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('answers that nothing is checked, and the CSV validation names no row', async () => {
    const user = await fundedCustomer(t.app, 0, t.db);
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/address/verify', headers: user.headers, payload: typed });
    expect(res.json()).toEqual({ message: ADDRESS_NOT_CHECKED, checked: false, verified: false, suggested: null });
    const validated = await validateCsv(t.app, user.headers, 'priority', csvText(usRows(2)));
    expect(validated.json().unverified).toBeUndefined();
  });
});
