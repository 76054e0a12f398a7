import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { signUp, startTestApp, testDbKind, type TestApp } from './harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('content', () => {
  it('serves the terms without sign-in', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/tos/read' });
    expect(res.statusCode).toBe(200);
    expect(res.json().tos).toContain('<h2>');
  });

  it('serves at least 8 FAQs and the announcement to a signed-in user only', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/faq/read' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/announcement/read' })).statusCode).toBe(401);
    const user = await signUp(t.app);
    const faqs = await t.app.inject({ method: 'GET', url: '/api/v1/faq/read', headers: user.headers });
    expect(faqs.json().data.length).toBeGreaterThanOrEqual(8);
    expect(faqs.json().data[0]).toEqual({ question: expect.any(String), answer: expect.any(String) });
    const announcement = await t.app.inject({ method: 'GET', url: '/api/v1/announcement/read', headers: user.headers });
    expect(announcement.json()).toEqual({ announcement: expect.stringContaining('Welcome'), status: true });
  });
});

describe('the server', () => {
  it('answers health checks and unknown API paths as JSON', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const missing = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toBe('Route GET /api/v1/nothing-here not found');
  });

  it('sends security headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("worker-src 'self' blob:");
  });

  describe('HSTS and upgrade-insecure-requests, which would leave a shop opened over plain http blank', () => {
    const headersOf = async (app: TestApp['app'], remoteAddress: string, headers: Record<string, string> = {}) => {
      const res = await app.inject({ method: 'GET', url: '/healthz', remoteAddress, headers });
      return { hsts: res.headers['strict-transport-security'], csp: String(res.headers['content-security-policy']) };
    };
    const sentOverHttps = { hsts: expect.stringContaining('max-age='), csp: expect.stringContaining('upgrade-insecure-requests') };
    const sentOverHttp = { hsts: undefined, csp: expect.not.stringContaining('upgrade-insecure-requests') };

    it('are sent only for https: a plain request, or a forged X-Forwarded-Proto, gets neither', async () => {
      expect(await headersOf(t.app, '192.0.2.50')).toEqual(sentOverHttp);
      expect((await headersOf(t.app, '192.0.2.50')).csp).toContain("worker-src 'self' blob:");
      // TRUST_PROXY is off: no client is a proxy whose X-Forwarded-Proto is believed.
      expect(await headersOf(t.app, '127.0.0.1', { 'x-forwarded-proto': 'https' })).toEqual(sentOverHttp);
    });

    it('believe X-Forwarded-Proto from the proxy TRUST_PROXY names, and from no other client', async () => {
      const behindProxy = await startTestApp({ TRUST_PROXY: '10.0.0.0/8' });
      try {
        expect(await headersOf(behindProxy.app, '10.1.2.3', { 'x-forwarded-proto': 'https' })).toEqual(sentOverHttps);
        expect(await headersOf(behindProxy.app, '10.1.2.3', { 'x-forwarded-proto': 'http' })).toEqual(sentOverHttp);
        expect(await headersOf(behindProxy.app, '10.1.2.3')).toEqual(sentOverHttp);
        expect(await headersOf(behindProxy.app, '192.0.2.50', { 'x-forwarded-proto': 'https' })).toEqual(sentOverHttp);
      } finally {
        await behindProxy.close();
      }
    });

    it('are always sent when PUBLIC_URL is https', async () => {
      const httpsShop = await startTestApp({ PUBLIC_URL: 'https://labels.example.com' });
      const httpShop = await startTestApp({ PUBLIC_URL: 'http://labels.example.com' });
      try {
        expect(await headersOf(httpsShop.app, '192.0.2.50')).toEqual(sentOverHttps);
        expect(await headersOf(httpShop.app, '192.0.2.50')).toEqual(sentOverHttp);
      } finally {
        await Promise.all([httpsShop.close(), httpShop.close()]);
      }
    });
  });

  it('allows cross-origin calls only from the dev origin', async () => {
    const dev = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/auth/login',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
    });
    expect(dev.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(dev.headers['access-control-allow-methods']).toContain('DELETE');
    const other = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/auth/login',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers a fault with a generic 500 and logs it', async () => {
    const logs: string[] = [];
    const failing = await startTestApp(
      {},
      {
        mailer: {
          send: async () => {
            throw new Error('smtp is down');
          },
        },
        logger: { level: 'error', stream: { write: (line: string) => logs.push(line) } },
      },
    );
    const user = await signUp(failing.app);
    const res = await failing.app.inject({ method: 'POST', url: '/api/v1/account/email', payload: { email: 'a@example.com' }, headers: user.headers });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ message: 'Something went wrong, please try again later' });
    expect(logs.join('')).toContain('smtp is down');
    expect(logs.join('')).toMatch(/"reqId":"[^"]+"/);
    await failing.close();
  });
});

describe.runIf(testDbKind === 'sqlite')('the embedded set-up', () => {
  it('serves the web app with history fallback, and keeps data across a restart', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-restart-'));
    const webDist = path.join(dataDir, 'web');
    fs.mkdirSync(path.join(webDist, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><div id="root"></div>');
    fs.writeFileSync(path.join(webDist, 'assets', 'app.js'), 'console.log(1)');
    const config = loadConfig({ DATA_DIR: dataDir, WEB_DIST: webDist, LOG_LEVEL: 'silent', ALTCHA_MAX_NUMBER: '1000' });

    const first = await buildApp(config, { logger: false });
    const page = await first.inject({ method: 'GET', url: '/deposits' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect((await first.inject({ method: 'GET', url: '/assets/app.js' })).body).toBe('console.log(1)');
    const missingScript = await first.inject({ method: 'GET', url: '/assets/missing.js' });
    expect(missingScript.statusCode).toBe(404);
    expect(missingScript.json()).toEqual({ message: 'Route GET /assets/missing.js not found' });
    // A browser gets the app (its not-found page) for a missing file and for a URL that cannot be decoded; programs get JSON.
    const html = { accept: 'text/html,application/xhtml+xml' };
    for (const url of ['/deposits.old', '/deposits/%E0%A4%A', '/%']) {
      const res = await first.inject({ method: 'GET', url, headers: html });
      expect([url, res.statusCode, res.headers['content-type']]).toEqual([url, 404, expect.stringContaining('text/html')]);
      expect(res.body).toContain('<div id="root">');
    }
    const badApi = await first.inject({ method: 'GET', url: '/api/v1/order/details/%zz', headers: html });
    expect(badApi.statusCode).toBe(400);
    expect(badApi.json()).toEqual({ message: "'/api/v1/order/details/%zz' is not a valid url component" });
    const user = await signUp(first);
    await first.close();

    const second = await buildApp(config, { logger: false });
    const access = await second.inject({ method: 'GET', url: '/api/v1/auth/access', headers: user.headers });
    expect(access.statusCode).toBe(200);
    expect(access.json().tgId).toBe(user.tgId);
    await second.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends the compressed copy the browser accepts, caches hashed assets for a year and never the page', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-static-'));
    const webDist = path.join(dataDir, 'web');
    fs.mkdirSync(path.join(webDist, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><div id="root"></div>');
    const script = 'console.log("hello");'.repeat(200);
    fs.writeFileSync(path.join(webDist, 'assets', 'index-abc123.js'), script);
    fs.writeFileSync(path.join(webDist, 'assets', 'index-abc123.js.br'), zlib.brotliCompressSync(script));
    fs.writeFileSync(path.join(webDist, 'assets', 'index-abc123.js.gz'), zlib.gzipSync(script));
    const app = await buildApp(loadConfig({ DATA_DIR: dataDir, WEB_DIST: webDist, LOG_LEVEL: 'silent' }), { logger: false });
    try {
      const br = await app.inject({ method: 'GET', url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect([br.statusCode, br.headers['content-encoding'], br.headers['cache-control']]).toEqual([200, 'br', 'public, max-age=31536000, immutable']);
      expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(script);
      const gzip = await app.inject({ method: 'GET', url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip' } });
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(zlib.gunzipSync(gzip.rawPayload).toString()).toBe(script);
      const plain = await app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
      expect([plain.headers['content-encoding'], plain.body]).toEqual([undefined, script]);
      for (const url of ['/index.html', '/deposits']) {
        expect((await app.inject({ method: 'GET', url })).headers['cache-control']).toBe('no-cache');
      }
    } finally {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
