import { describe, expect, it } from 'vitest';
import { GOING_LIVE_ITEMS } from '@portal/contract';
import { stampBackup } from '../../lib/backup-stamp.ts';
import { startTestApp } from '../../../test/harness.ts';
import { adminCall, signUpAdmin, signUpCustomer } from '../../../test/admin-fixtures.ts';
import { goingLiveItems, supervisorOf, type GoingLiveSettings } from './going-live.ts';

// Issue 49, Going live in one place: GET /admin/going-live ticks the README's checklist from the running settings.

type Item = { id: string; done: boolean; detail: string };
const byId = (items: Item[]) => Object.fromEntries(items.map((item) => [item.id, item]));

describe('the Going live checklist', () => {
  it("of a shop on its defaults: what is missing, and that links made at another address than this machine's point to localhost", async () => {
    const t = await startTestApp();
    try {
      const admin = await signUpAdmin(t);
      const customer = await signUpCustomer(t);
      expect((await adminCall(t.app, customer.headers, 'GET', '/going-live')).statusCode).toBe(403);

      const at = async (host: string) =>
        (await t.app.inject({ method: 'GET', url: '/api/v1/admin/going-live', headers: { ...admin.headers, host } })).json().items as Item[];
      const local = await at('localhost:7400');
      expect(local.map((item) => item.id)).toEqual([...GOING_LIVE_ITEMS]);
      const items = byId(local);
      expect(items.payments).toMatchObject({ done: false, detail: expect.stringContaining('PAYMENT_PROVIDER is sandbox') });
      expect(items.public_url).toMatchObject({ done: false, detail: expect.stringContaining('links use the address of each request') });
      // The harness mails through a local SMTP server.
      expect(items.smtp).toMatchObject({ done: true, detail: 'Mail is sent through SMTP_URL.' });
      expect(items.tls).toMatchObject({ done: false, detail: expect.stringContaining('not an https:// address') });
      expect(items.upstream).toMatchObject({ done: false, detail: expect.stringContaining('SAMPLE labels') });
      expect(items.price_check.done).toBe(false);
      expect(items.backups).toMatchObject({ done: false, detail: expect.stringContaining('No npm run backup recorded') });
      expect(items.supervisor.done).toBe(supervisorOf(process.env) !== null);

      // Opened at a network name: Add Balance's links would lead to this machine, and the item says so with the fix.
      const remote = byId(await at('shop.example.com'));
      expect(remote.public_url.detail).toBe(
        `PUBLIC_URL is not set: you opened the console at http://shop.example.com, but the links the shop hands out there (Add Balance's payment page, downloads) point to http://localhost:${t.config.PORT}. Set PUBLIC_URL=http://shop.example.com.`,
      );

      // npm run backup stamps DATA_DIR; a stamp more than 2 days old is not enough.
      stampBackup(t.config.dataDir, new Date(Date.now() - 3 * 24 * 60 * 60_000));
      expect(byId(await at('localhost')).backups).toMatchObject({ done: false, detail: expect.stringContaining('more than 2 days ago') });
      const now = new Date();
      stampBackup(t.config.dataDir, now);
      expect(byId(await at('localhost')).backups).toEqual({
        id: 'backups',
        title: 'Backups',
        done: true,
        detail: `Last npm run backup: ${now.toISOString()}.`,
      });
    } finally {
      await t.close();
    }
  });

  it('ticks the public URL and TLS for an https PUBLIC_URL behind a proxy TRUST_PROXY names, and not without TRUST_PROXY', async () => {
    const t = await startTestApp({ PUBLIC_URL: 'https://labels.example.com', TRUST_PROXY: '127.0.0.1' });
    try {
      const admin = await signUpAdmin(t);
      const items = byId((await adminCall(t.app, admin.headers, 'GET', '/going-live')).json().items);
      expect(items.public_url).toMatchObject({ done: true, detail: 'Links (payment pages, downloads, Telegram messages) use https://labels.example.com.' });
      expect(items.tls.done).toBe(true);
    } finally {
      await t.close();
    }
    const settings: GoingLiveSettings = {
      paymentProvider: 'btcpay',
      publicUrl: 'https://labels.example.com',
      allowedHosts: [],
      smtp: false,
      trustProxy: false,
      upstreams: ['easypost', 'sandbox'],
      postgres: true,
      dataDir: '/nonexistent',
      supervisor: 'systemd',
    };
    const facts = { requestOrigin: 'https://labels.example.com', linkOrigin: 'https://labels.example.com', now: Date.now() };
    const items = byId(goingLiveItems(settings, { ...facts, priceCheck: { checkedAt: '2026-11-29T10:00:00.000Z', negative: 2, notRated: 0 } }, null));
    expect(items.payments.done).toBe(true);
    expect(items.smtp).toMatchObject({ done: false, detail: expect.stringContaining('SMTP_URL is not set') });
    expect(items.tls).toMatchObject({ done: false, detail: expect.stringContaining('TRUST_PROXY is false') });
    expect(items.upstream).toMatchObject({ done: false, detail: expect.stringContaining('LABEL_UPSTREAMS includes sandbox') });
    expect(items.price_check).toMatchObject({ done: false, detail: expect.stringContaining('2 prices below') });
    expect(items.backups.detail).toContain("pg_dump's job");
    expect(items.supervisor).toMatchObject({ done: true, detail: 'Restarted after a crash by systemd.' });
    const live = byId(
      goingLiveItems(
        { ...settings, smtp: true, trustProxy: true, upstreams: ['easypost'] },
        { ...facts, priceCheck: { checkedAt: '2026-11-29T10:00:00.000Z', negative: 0, notRated: 0 } },
        new Date().toISOString(),
      ),
    );
    expect(Object.values(live).every((item) => item.done)).toBe(true);
  });

  it('knows the supervisors by what they leave in the environment', () => {
    expect(supervisorOf({ PORTAL_SUPERVISOR: 'scripts/supervise.mjs' })).toBe('npm start (scripts/supervise.mjs)');
    expect(supervisorOf({ INVOCATION_ID: 'abc' })).toBe('systemd');
    expect(supervisorOf({ KUBERNETES_SERVICE_HOST: '10.0.0.1' })).toBe('Kubernetes');
    expect(supervisorOf({ pm_id: '0' })).toBe('pm2');
    expect(supervisorOf({})).toBeNull();
  });
});
