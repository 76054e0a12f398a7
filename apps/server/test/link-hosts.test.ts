import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { linkOrigin } from '../src/lib/link-origin.ts';
import { callApi, labelFields, resellerUser } from './reseller-fixtures.ts';
import { startFakeTelegram, type FakeTelegram } from './fake-telegram.ts';
import { startTestApp, type TestApp } from './harness.ts';

/** Host headers a client may forge: none of them may become the origin of a link. */
const FORGED = [
  'evil.example',
  'evil.example:7400',
  'shop.example.com.evil.example',
  'localhost.evil.example',
  'localhost@evil.example',
  'evil.example/localhost',
  '127.0.0.1.evil.example',
];
const FALLBACK = 'http://localhost:7400';

describe('links without PUBLIC_URL', () => {
  let t: TestApp;
  let tg: FakeTelegram;
  let user: Awaited<ReturnType<typeof resellerUser>>;
  beforeAll(async () => {
    tg = await startFakeTelegram();
    t = await startTestApp({
      ALLOWED_HOSTS: 'shop.example.com, api.example.com:8443',
      TELEGRAM_BOT_TOKEN: tg.token,
      TELEGRAM_BOT_USERNAME: tg.username,
      TELEGRAM_API_ROOT: tg.apiRoot,
    });
    user = await resellerUser(t.app, t.db, 50_000);
  });
  afterAll(async () => {
    await t?.close();
    await tg?.close();
  });

  /** The origin of each of the four kinds of link made for a request to this Host. */
  async function linksFor(host: string) {
    const headers = { ...user.headers, host };
    const invoice = await t.app.inject({ method: 'POST', url: '/api/v1/invoices/create-invoice', headers, payload: { amount: 50, type: 'crypto' } });
    expect(invoice.statusCode).toBe(200);
    const hosted = new URL(invoice.json().data.hosted_url);
    const paid = await t.app.inject({
      method: 'POST',
      url: `${hosted.pathname}/simulate`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'action=pay',
    });
    expect(paid.statusCode).toBe(303);
    const document = (await callApi(t.app, undefined, 'GET', '/openapi.json', { headers: { host } })).json();
    const order = (await callApi(t.app, user.apiKey, 'POST', '/order/create-order', { headers: { host }, payload: labelFields() })).json().order;
    const link = await t.app.inject({ method: 'POST', url: '/api/v1/account/telegram/link', headers });
    expect(link.statusCode).toBe(200);
    const token = await t.db
      .selectFrom('telegram_link_tokens')
      .select('shop_url')
      .where('user_id', '=', user.userId)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    return {
      paymentPage: hosted.origin,
      paymentReturn: new URL(paid.headers.location as string).origin,
      openApiServer: new URL(document.servers[0].url).origin,
      downloadUrl: new URL(order.downloadUrl).origin,
      telegramLinks: token.shop_url,
    };
  }
  const everywhere = (origin: string) => ({ paymentPage: origin, paymentReturn: origin, openApiServer: origin, downloadUrl: origin, telegramLinks: origin });

  it.each(FORGED)('gives no link to a forged Host %s', async (host) => {
    expect(await linksFor(host)).toEqual(everywhere(FALLBACK));
  });

  it.each([
    ['shop.example.com', 'http://shop.example.com'],
    ['SHOP.example.com:8080', 'http://shop.example.com:8080'], // listed without a port: any port
    ['api.example.com:8443', 'http://api.example.com:8443'],
    ['localhost:7400', 'http://localhost:7400'],
    ['127.0.0.1:9999', 'http://127.0.0.1:9999'],
    ['[::1]:7400', 'http://[::1]:7400'],
  ])('links to an allowed or loopback Host %s', async (host, origin) => {
    expect(await linksFor(host)).toEqual(everywhere(origin));
  });

  it('refuses a listed host on another port than the one listed', async () => {
    expect(await linksFor('api.example.com:9000')).toEqual(everywhere(FALLBACK));
  });
});

describe('the link origin', () => {
  const settings = { ALLOWED_HOSTS: [], PORT: 7400 };
  it('is PUBLIC_URL whenever it is set, whatever the Host', () => {
    expect(linkOrigin({ ...settings, PUBLIC_URL: 'https://labels.example.com/' }, { protocol: 'http', host: 'evil.example' })).toBe(
      'https://labels.example.com',
    );
  });

  it('keeps the request protocol for a trusted host, and refuses a Host that is not host[:port]', () => {
    expect(linkOrigin(settings, { protocol: 'https', host: 'localhost' })).toBe('https://localhost');
    for (const host of ['', 'localhost:7400 evil', 'localhost:port', 'local host', 'localhost\r\nx: y'])
      expect(linkOrigin(settings, { protocol: 'http', host })).toBe(FALLBACK);
  });
});

describe('ALLOWED_HOSTS', () => {
  it('is a comma-separated list of host[:port], read in lower case, and names a bad entry', () => {
    expect(loadConfig({}).ALLOWED_HOSTS).toEqual([]);
    expect(loadConfig({ ALLOWED_HOSTS: ' Shop.Example.com, 10.0.0.5:7400,[::1]:80 ' }).ALLOWED_HOSTS).toEqual([
      'shop.example.com',
      '10.0.0.5:7400',
      '[::1]:80',
    ]);
    expect(() => loadConfig({ ALLOWED_HOSTS: 'https://shop.example.com' })).toThrowError(/ALLOWED_HOSTS/);
    expect(() => loadConfig({ ALLOWED_HOSTS: 'shop.example.com/path' })).toThrowError(/ALLOWED_HOSTS/);
  });

  it('or PUBLIC_URL is required when HOST reaches beyond this machine: the shop refuses to start without either, naming PUBLIC_URL', () => {
    expect(() => loadConfig({ HOST: '0.0.0.0' })).toThrowError(/PUBLIC_URL: required when HOST \(0\.0\.0\.0\) reaches beyond this machine/);
    expect(() => loadConfig({ HOST: '192.0.2.2' })).toThrowError(/PUBLIC_URL: required/);
    expect(loadConfig({ HOST: '0.0.0.0', ALLOWED_HOSTS: 'shop.example.com' }).HOST).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0', PUBLIC_URL: 'https://shop.example.com' }).HOST).toBe('0.0.0.0');
    for (const host of ['127.0.0.1', '::1', 'localhost']) expect(loadConfig({ HOST: host }).HOST).toBe(host);
    // Unset, HOST listens on every interface only when links know the shop's address.
    expect(loadConfig({}).HOST).toBe('127.0.0.1');
    expect(loadConfig({ PUBLIC_URL: 'https://shop.example.com' }).HOST).toBe('0.0.0.0');
    expect(loadConfig({ ALLOWED_HOSTS: 'shop.example.com' }).HOST).toBe('0.0.0.0');
  });
});
