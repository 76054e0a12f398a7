import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PACKAGE_CREATED,
  PACKAGE_DELETED,
  PACKAGE_DIMENSIONS_PARTIAL,
  PACKAGE_LIMIT,
  PACKAGE_LIMIT_REACHED,
  PACKAGE_NOT_FOUND,
  PACKAGE_UPDATED,
  packageNameTaken,
} from '@portal/contract';
import { signUp, startTestApp, userIdOf, type TestApp } from '../../../test/harness.ts';
import { callApi, resellerUser, urlencoded } from '../../../test/reseller-fixtures.ts';
import { packageNamed } from './service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type Headers = { authorization: string };
const smallBox = { name: 'Small box', weight: 2.5, weightUnit: 'lb', length: 10, width: 8, height: 4 };
const list = async (headers: Headers) => {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/packages', headers });
  expect(res.statusCode).toBe(200);
  return res.json().packages as Record<string, unknown>[];
};
const create = (headers: Headers, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/api/v1/packages', payload, headers });
const update = (headers: Headers, id: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'PUT', url: `/api/v1/packages/${id}`, payload, headers });
const remove = (headers: Headers, id: string) => t.app.inject({ method: 'DELETE', url: `/api/v1/packages/${id}`, headers });

describe('saved packages on the web', () => {
  it('creates, lists by name, updates and deletes the customer own packages', async () => {
    const { headers } = await signUp(t.app);
    const created = await create(headers, smallBox);
    expect(created.statusCode).toBe(200);
    const box = created.json().package;
    expect(created.json()).toEqual({ message: PACKAGE_CREATED, package: { _id: expect.any(String), ...smallBox } });
    const letter = (await create(headers, { name: 'a letter', weight: 3, weightUnit: 'oz' })).json().package;
    // By name, without regard to case.
    expect(await list(headers)).toEqual([letter, box]);

    const updated = await update(headers, box._id, { name: 'Medium box', weight: 5, length: 12, width: 10, height: 6 });
    expect(updated.json()).toEqual({
      message: PACKAGE_UPDATED,
      package: { _id: box._id, name: 'Medium box', weight: 5, weightUnit: 'lb', length: 12, width: 10, height: 6 },
    });
    // Dimensions left out of an update are removed: the package is what was sent.
    await update(headers, box._id, { name: 'Medium box', weight: 5 });
    expect(await list(headers)).toEqual([letter, { _id: box._id, name: 'Medium box', weight: 5, weightUnit: 'lb', length: null, width: null, height: null }]);
    const row = await t.db.selectFrom('packages').select(['created_at', 'updated_at']).where('id', '=', box._id).executeTakeFirstOrThrow();
    expect(row.updated_at > row.created_at).toBe(true);

    const deleted = await remove(headers, box._id);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ message: PACKAGE_DELETED });
    expect(await list(headers)).toEqual([letter]);
    expect((await remove(headers, box._id)).statusCode).toBe(404);
  });

  it.each([
    ['a name at 40 characters', { name: 'n'.repeat(40) }, { name: 'n'.repeat(40) }],
    ['a name with spaces around, trimmed', { name: '  Tube  ' }, { name: 'Tube' }],
    ['ounces up to 2400', { weight: 2400, weightUnit: 'oz' }, { weight: 2400, weightUnit: 'oz' }],
    ['pounds up to 150', { weight: 150 }, { weight: 150, weightUnit: 'lb' }],
    ['the least weight, 0.01', { weight: 0.01 }, { weight: 0.01 }],
    ['no dimensions', { length: undefined, width: undefined, height: undefined }, { length: null, width: null, height: null }],
    ['null or empty dimensions, as a form sends them', { length: null, width: '', height: null }, { length: null, width: null, height: null }],
    ['dimensions of 200 inches as text', { length: '200', width: '0.5', height: '200' }, { length: 200, width: 0.5, height: 200 }],
  ])('takes %s', async (_what, change, saved) => {
    const { headers } = await signUp(t.app);
    const res = await create(headers, { ...smallBox, ...change });
    expect(res.statusCode).toBe(200);
    expect(res.json().package).toEqual({ _id: expect.any(String), ...smallBox, ...change, ...saved });
    expect(await list(headers)).toEqual([res.json().package]);
  });

  it.each([
    [{ name: '' }, 'Name is required'],
    [{ name: '   ' }, 'Name is required'],
    [{ name: undefined }, 'Name is required'],
    [{ name: 'n'.repeat(41) }, 'Name must be at most 40 characters'],
    [{ name: 42 }, 'Name must be text'],
    [{ name: 'Box\u202Eevil' }, 'Name holds characters that cannot be printed'],
    [{ weight: undefined }, 'Weight is required'],
    [{ weight: 0 }, 'Weight must be greater than 0'],
    [{ weight: -1 }, 'Weight must be greater than 0'],
    [{ weight: 'heavy' }, 'Weight must be a number'],
    [{ weight: 1.234 }, 'Weight must have at most 2 decimal places'],
    [{ weight: 150.01 }, 'Weight must be at most 150 lb'],
    [{ weight: 2400.01, weightUnit: 'oz' }, 'Weight must be at most 2400 oz'],
    [{ weightUnit: 'kg' }, 'Weight unit must be lb or oz'],
    [{ length: 0 }, 'Length must be greater than 0'],
    [{ width: 200.01 }, 'Width must be at most 200'],
    [{ height: '1e3' }, 'Height must be a number'],
    [{ height: undefined }, PACKAGE_DIMENSIONS_PARTIAL],
    [{ width: null, height: null }, PACKAGE_DIMENSIONS_PARTIAL],
  ])('refuses %j with a clear 400 and saves nothing', async (change, message) => {
    const { headers } = await signUp(t.app);
    const res = await create(headers, { ...smallBox, ...change });
    expect([res.statusCode, res.json().message]).toEqual([400, message]);
    expect(await list(headers)).toEqual([]);
  });

  it('refuses a second package of the same name in any case, on create and on rename, and lets another customer use it', async () => {
    const owner = await signUp(t.app);
    const box = (await create(owner.headers, smallBox)).json().package;
    const again = await create(owner.headers, { ...smallBox, name: 'SMALL BOX', weight: 1 });
    expect([again.statusCode, again.json().message]).toEqual([409, packageNameTaken('SMALL BOX')]);
    const tube = (await create(owner.headers, { name: 'Tube', weight: 1 })).json().package;
    const renamed = await update(owner.headers, tube._id, { name: ' small Box ', weight: 1 });
    expect([renamed.statusCode, renamed.json().message]).toEqual([409, packageNameTaken('small Box')]);
    // A package may keep its own name, in another case.
    expect((await update(owner.headers, box._id, { ...smallBox, name: 'Small Box' })).statusCode).toBe(200);
    expect((await list(owner.headers)).map((p) => p.name)).toEqual(['Small Box', 'Tube']);

    const other = await signUp(t.app);
    expect((await create(other.headers, smallBox)).statusCode).toBe(200);
  });

  it(`keeps at most ${PACKAGE_LIMIT} packages a customer, and takes one again after a delete`, async () => {
    const { headers } = await signUp(t.app);
    for (let i = 1; i <= PACKAGE_LIMIT; i++) expect((await create(headers, { name: `Box ${i}`, weight: 1 })).statusCode).toBe(200);
    const over = await create(headers, { name: 'One too many', weight: 1 });
    expect([over.statusCode, over.json().message]).toEqual([400, PACKAGE_LIMIT_REACHED]);
    const packages = await list(headers);
    expect(packages).toHaveLength(PACKAGE_LIMIT);
    await remove(headers, packages[0]._id as string);
    expect((await create(headers, { name: 'One too many', weight: 1 })).statusCode).toBe(200);
  });

  it("answers 404 for another customer's package on update and delete, and never shows or finds it", async () => {
    const owner = await signUp(t.app);
    const stranger = await signUp(t.app);
    const mine = (await create(owner.headers, { ...smallBox, name: 'Private' })).json().package;
    expect(await list(stranger.headers)).toEqual([]);
    expect(await packageNamed(t.db, await userIdOf(t.app, stranger.headers), 'Private')).toBeUndefined();
    for (const res of [await update(stranger.headers, mine._id, { ...smallBox, name: 'Stolen' }), await remove(stranger.headers, mine._id)]) {
      expect([res.statusCode, res.json()]).toEqual([404, { message: PACKAGE_NOT_FOUND }]);
    }
    expect(await list(owner.headers)).toEqual([mine]);
    expect((await update(owner.headers, 'no-such-package', smallBox)).statusCode).toBe(404);
  });

  it('packageNamed finds the customer own package by its exact name in any case', async () => {
    const { headers } = await signUp(t.app);
    const userId = await userIdOf(t.app, headers);
    const box = (await create(headers, smallBox)).json().package;
    expect(await packageNamed(t.db, userId, 'Small box')).toEqual(box);
    expect(await packageNamed(t.db, userId, 'sMALL BOX')).toEqual(box);
    expect(await packageNamed(t.db, userId, 'Small')).toBeUndefined();
    expect(await packageNamed(t.db, userId, 'Small box 2')).toBeUndefined();
  });

  it('needs a signed-in customer', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/packages' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/packages', payload: smallBox })).statusCode).toBe(401);
  });
});

describe('saved packages in the reseller API', () => {
  it('lists, saves (JSON or form), changes and deletes the key owner packages', async () => {
    const user = await resellerUser(t.app, t.db, 0);
    expect((await callApi(t.app, user.apiKey, 'GET', '/packages')).json()).toEqual({ type: 'success', message: 'Packages', packages: [] });

    const created = await callApi(t.app, user.apiKey, 'POST', '/packages', { payload: smallBox });
    expect(created.statusCode).toBe(200);
    const box = created.json().package;
    expect(created.json()).toEqual({ type: 'success', message: PACKAGE_CREATED, package: { _id: expect.any(String), ...smallBox } });
    const form = await callApi(t.app, user.apiKey, 'POST', '/packages', {
      payload: urlencoded({ name: 'Envelope', weight: '8', weightUnit: 'oz', length: '', width: '', height: '' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.json().package).toEqual({ _id: expect.any(String), name: 'Envelope', weight: 8, weightUnit: 'oz', length: null, width: null, height: null });
    // The same packages as the web's.
    expect(await list(user.headers)).toEqual([form.json().package, box]);

    const changed = await callApi(t.app, user.apiKey, 'PUT', `/packages/${box._id}`, { payload: { ...smallBox, weight: 3 } });
    expect(changed.json()).toEqual({ type: 'success', message: PACKAGE_UPDATED, package: { ...box, weight: 3 } });
    const deleted = await callApi(t.app, user.apiKey, 'DELETE', `/packages/${box._id}`);
    expect(deleted.json()).toEqual({ type: 'success', message: PACKAGE_DELETED });
    expect((await callApi(t.app, user.apiKey, 'GET', '/packages')).json().packages).toEqual([form.json().package]);
  });

  it('answers refusals in its own error shape: every bad field, a taken name, another customer package', async () => {
    const user = await resellerUser(t.app, t.db, 0);
    const stranger = await resellerUser(t.app, t.db, 0);
    const bad = await callApi(t.app, user.apiKey, 'POST', '/packages', { payload: { name: '', weight: 151 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      type: 'error',
      message: '2 fields are not valid: Name is required; Weight must be at most 150 lb',
      errors: [
        { field: 'name', message: 'Name is required' },
        { field: 'weight', message: 'Weight must be at most 150 lb' },
      ],
    });
    const partial = await callApi(t.app, user.apiKey, 'POST', '/packages', { payload: { name: 'Flat', weight: 1, length: 5 } });
    expect(partial.json()).toEqual({ type: 'error', message: PACKAGE_DIMENSIONS_PARTIAL, errors: [{ field: 'width', message: PACKAGE_DIMENSIONS_PARTIAL }] });

    const box = (await callApi(t.app, user.apiKey, 'POST', '/packages', { payload: smallBox })).json().package;
    const twice = await callApi(t.app, user.apiKey, 'POST', '/packages', { payload: { ...smallBox, name: 'small box' } });
    expect([twice.statusCode, twice.json()]).toEqual([409, { type: 'error', message: packageNameTaken('small box') }]);

    for (const res of [
      await callApi(t.app, stranger.apiKey, 'PUT', `/packages/${box._id}`, { payload: { ...smallBox, name: 'Stolen' } }),
      await callApi(t.app, stranger.apiKey, 'DELETE', `/packages/${box._id}`),
    ]) {
      expect([res.statusCode, res.json()]).toEqual([404, { type: 'error', message: PACKAGE_NOT_FOUND }]);
    }
    expect((await callApi(t.app, stranger.apiKey, 'GET', '/packages')).json().packages).toEqual([]);
    expect((await callApi(t.app, user.apiKey, 'GET', '/packages')).json().packages).toEqual([box]);
    expect((await callApi(t.app, undefined, 'GET', '/packages')).statusCode).toBe(401);
  });
});
