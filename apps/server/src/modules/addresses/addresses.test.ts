import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADDRESS_CREATED,
  ADDRESS_DELETED,
  ADDRESS_DUPLICATE,
  ADDRESS_LIMIT,
  ADDRESS_LIMIT_REACHED,
  ADDRESS_NOT_FOUND,
  ADDRESS_UPDATED,
  ADDRESS_ZIP_INVALID,
} from '@portal/contract';
import { signUp, startTestApp, type TestApp } from '../../../test/harness.ts';
import { SENDER } from '../../../test/sample-addresses.ts';

let t: TestApp;
let owner: { authorization: string };
let stranger: { authorization: string };
beforeAll(async () => {
  t = await startTestApp();
  owner = (await signUp(t.app)).headers;
  stranger = (await signUp(t.app)).headers;
});
afterAll(() => t.close());

const home = { ...SENDER, company: 'Sender LLC', street2: 'Apt 4' };
const readAll = async (headers: { authorization: string }) =>
  (await t.app.inject({ method: 'GET', url: '/api/v1/address/readAll', headers })).json().addresses as any[];
const createAddress = (headers: { authorization: string }, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/v1/address/create', payload, headers });

describe('address book', () => {
  it('adds, lists, updates and deletes the user own addresses', async () => {
    const created = await createAddress(owner, home);
    expect(created.statusCode).toBe(200);
    expect(created.json()).toEqual({ message: ADDRESS_CREATED });
    const [address] = await readAll(owner);
    expect(address).toEqual({ _id: expect.any(String), ...home });

    const updated = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/address/update/${address._id}`,
      payload: { ...home, street: '9 Elm Road', street2: '', state: 'Puerto Rico', zip: '00901' },
      headers: owner,
    });
    expect(updated.json()).toEqual({ message: ADDRESS_UPDATED });
    expect(await readAll(owner)).toEqual([{ ...home, _id: address._id, street: '9 Elm Road', street2: '', state: 'PR', zip: '00901' }]);

    const deleted = await t.app.inject({ method: 'DELETE', url: `/api/v1/address/delete/${address._id}`, headers: owner });
    expect(deleted.json()).toEqual({ message: ADDRESS_DELETED });
    expect(await readAll(owner)).toEqual([]);
  });

  it('fixes the country to United States and takes optional fields as empty', async () => {
    const res = await createAddress(owner, { name: 'No Extras', street: '1 A St', city: 'Austin', state: 'tx', zip: 73301 });
    expect(res.statusCode).toBe(200);
    const found = (await readAll(owner)).find((a) => a.name === 'No Extras');
    expect(found).toMatchObject({ company: '', street2: '', state: 'TX', zip: '73301', country: 'United States' });
  });

  it.each([
    [{ state: 'ON' }, 'State must be a US state, DC or PR'],
    [{ state: '' }, 'State is required'],
    [{ zip: '1000A' }, ADDRESS_ZIP_INVALID],
    [{ zip: '123456' }, ADDRESS_ZIP_INVALID],
    [{ zip: '12345-678' }, ADDRESS_ZIP_INVALID],
    [{ country: 'Canada' }, 'Country must be United States'],
    [{ name: undefined }, 'Name is required'],
    [{ street: 'x'.repeat(36) }, 'Street must be at most 35 characters'],
    [{ street2: 'x'.repeat(36) }, 'Street 2 must be at most 35 characters'],
    [{ city: 42 }, 'City must be text'],
  ])('rejects %j with a clear 400 and saves nothing', async (change, message) => {
    const before = (await readAll(stranger)).length;
    const res = await createAddress(stranger, { ...home, ...change });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(message);
    expect(await readAll(stranger)).toHaveLength(before);
  });

  it('takes a ZIP+4 as orders and CSV files do, and keeps it as typed', async () => {
    const res = await createAddress(owner, { ...home, name: 'Zip Plus Four', zip: '10001-2345' });
    expect(res.statusCode).toBe(200);
    expect((await readAll(owner)).find((a) => a.name === 'Zip Plus Four')).toMatchObject({ zip: '10001-2345' });
  });

  it('refuses an address saved already (case and spaces aside) with a 409, on create and update, and saves nothing', async () => {
    const user = (await signUp(t.app)).headers;
    const entry = { ...home, name: 'Twice Saved' };
    expect((await createAddress(user, entry)).statusCode).toBe(200);
    const again = await createAddress(user, { ...entry, name: '  twice   SAVED ', street: entry.street.toUpperCase(), state: 'New York' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ message: ADDRESS_DUPLICATE });
    expect(await readAll(user)).toHaveLength(1);

    // Another name at the same place is another entry (two names for one address can be meant).
    expect((await createAddress(user, { ...entry, name: 'Other Person' })).statusCode).toBe(200);
    const book = await readAll(user);
    const [other, first] = ['Other Person', 'Twice Saved'].map((name) => book.find((a) => a.name === name));
    // Renaming it to the first entry would make a twin: refused, and it keeps its name; saving an entry unchanged is fine.
    const update = (id: string, payload: Record<string, unknown>) =>
      t.app.inject({ method: 'PUT', url: `/api/v1/address/update/${id}`, payload, headers: user });
    const renamed = await update(other._id, entry);
    expect([renamed.statusCode, renamed.json()]).toEqual([409, { message: ADDRESS_DUPLICATE }]);
    expect((await readAll(user)).map((a) => a.name).sort()).toEqual(['Other Person', 'Twice Saved']);
    expect((await update(first._id, entry)).statusCode).toBe(200);
    // The same lines in another user's book are theirs alone.
    expect((await createAddress(stranger, entry)).statusCode).toBe(200);
  });

  it('saves one of the same entry sent several times at once, and no more than the book holds', async () => {
    const user = (await signUp(t.app)).headers;
    const entry = { ...home, name: 'Sent At Once' };
    const answers = await Promise.all(Array.from({ length: 6 }, () => createAddress(user, entry)));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(await readAll(user)).toHaveLength(1);
    // Distinct entries, one short of the limit first: of five sent at once, one fits.
    await Promise.all(Array.from({ length: ADDRESS_LIMIT - 2 }, (_, i) => createAddress(user, { ...home, name: `Filler ${i}` })));
    expect(await readAll(user)).toHaveLength(ADDRESS_LIMIT - 1);
    const last = await Promise.all(Array.from({ length: 5 }, (_, i) => createAddress(user, { ...home, name: `Last ${i}` })));
    expect(last.map((a) => a.statusCode).sort()).toEqual([200, 400, 400, 400, 400]);
    expect(last.filter((a) => a.statusCode === 400).map((a) => a.json().message)).toEqual(Array(4).fill(ADDRESS_LIMIT_REACHED));
    expect(await readAll(user)).toHaveLength(ADDRESS_LIMIT);
  });

  it('answers 404 for another user address on update and delete, and leaves it alone', async () => {
    await createAddress(owner, { ...home, name: 'Private' });
    const mine = (await readAll(owner)).find((a) => a.name === 'Private');
    expect(await readAll(stranger)).not.toContainEqual(expect.objectContaining({ _id: mine._id }));
    const update = await t.app.inject({ method: 'PUT', url: `/api/v1/address/update/${mine._id}`, payload: { ...home, name: 'Stolen' }, headers: stranger });
    const remove = await t.app.inject({ method: 'DELETE', url: `/api/v1/address/delete/${mine._id}`, headers: stranger });
    for (const res of [update, remove]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ message: ADDRESS_NOT_FOUND });
    }
    expect((await readAll(owner)).find((a) => a._id === mine._id).name).toBe('Private');
  });

  it('needs a signed-in user', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/address/readAll' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/address/create', payload: home })).statusCode).toBe(401);
  });
});
