import type { GoingLive } from '@portal/contract';

/** The running settings the Going live checklist reads (services.ts takes them from the configuration). */
export type GoingLiveSettings = {
  paymentProvider: string;
  publicUrl: string | null;
  allowedHosts: string[];
  smtp: boolean;
  /** TRUST_PROXY is not false. */
  trustProxy: boolean;
  upstreams: string[];
  postgres: boolean;
  dataDir: string;
  /** What restarts the process when it crashes, as supervisorOf found it, or null. */
  supervisor: string | null;
};

/** What the checklist reads at the moment it is asked: the operator's own request, the last price check. */
export type GoingLiveFacts = {
  /** The origin the operator opened the console at, and the one links made for that request use (link-origin.ts). */
  requestOrigin: string;
  linkOrigin: string;
  priceCheck: { checkedAt: string; sandbox?: boolean; negative: number; notRated: number } | null;
  now: number;
};

const BACKUP_MAX_AGE_MS = 2 * 24 * 60 * 60_000;

/** What restarts this process when it crashes, from the environment its starter leaves: npm start, systemd, Kubernetes, pm2. */
export function supervisorOf(env: Record<string, string | undefined>): string | null {
  if (env.PORTAL_SUPERVISOR) return `npm start (${env.PORTAL_SUPERVISOR})`;
  if (env.INVOCATION_ID) return 'systemd';
  if (env.KUBERNETES_SERVICE_HOST) return 'Kubernetes';
  if (env.pm_id !== undefined) return 'pm2';
  return null;
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** The checklist, in the README's order: each item done or not, with what was found or what to set. */
export function goingLiveItems(settings: GoingLiveSettings, facts: GoingLiveFacts, backupAt: string | null): GoingLive['items'] {
  const { publicUrl } = settings;
  const https = publicUrl !== null && new URL(publicUrl).protocol === 'https:';
  const realUpstreams = settings.upstreams.filter((name) => name !== 'sandbox');
  const check = facts.priceCheck;
  const backupFresh = backupAt !== null && facts.now - Date.parse(backupAt) <= BACKUP_MAX_AGE_MS;
  return [
    {
      id: 'payments',
      title: 'Payment provider',
      done: settings.paymentProvider !== 'sandbox',
      detail:
        settings.paymentProvider !== 'sandbox'
          ? `Deposits are paid through ${settings.paymentProvider}.`
          : 'PAYMENT_PROVIDER is sandbox: Add Balance credits a balance without any payment. Set PAYMENT_PROVIDER=btcpay and its BTCPAY_ settings.',
    },
    {
      id: 'public_url',
      title: 'Public URL',
      done: publicUrl !== null,
      detail:
        publicUrl !== null
          ? `Links (payment pages, downloads, Telegram messages) use ${publicUrl}.`
          : facts.linkOrigin !== facts.requestOrigin
            ? `PUBLIC_URL is not set: you opened the console at ${facts.requestOrigin}, but the links the shop hands out there (Add Balance's payment page, downloads) point to ${facts.linkOrigin}. Set PUBLIC_URL=${facts.requestOrigin}.`
            : `PUBLIC_URL is not set: links use the address of each request, when it is this machine${settings.allowedHosts.length ? ' or in ALLOWED_HOSTS' : ''}; any other address gets links to this machine. Set PUBLIC_URL to the shop's address.`,
    },
    {
      id: 'smtp',
      title: 'Mail (SMTP)',
      done: settings.smtp,
      detail: settings.smtp
        ? 'Mail is sent through SMTP_URL.'
        : 'SMTP_URL is not set: mail (sign-up codes, password resets) is kept in the outbox (npm run outbox), never sent.',
    },
    {
      id: 'tls',
      title: 'TLS behind a proxy',
      done: https && settings.trustProxy,
      detail: !https
        ? 'PUBLIC_URL is not an https:// address: put the shop behind a proxy that ends TLS and set PUBLIC_URL to its https address.'
        : !settings.trustProxy
          ? "TRUST_PROXY is false: behind the proxy every client has the proxy's address (one attempt limit for all) and its X-Forwarded-Proto is ignored. Name the proxy in TRUST_PROXY."
          : 'PUBLIC_URL is https and TRUST_PROXY names the proxy that ends TLS.',
    },
    {
      id: 'upstream',
      title: 'Label upstream',
      done: realUpstreams.length > 0 && realUpstreams.length === settings.upstreams.length,
      detail:
        realUpstreams.length === 0
          ? 'Labels come from the sandbox: SAMPLE labels, not postage. Set LABEL_PROVIDER=easypost (or shippo) with its API key, or LABEL_UPSTREAMS.'
          : realUpstreams.length < settings.upstreams.length
            ? `LABEL_UPSTREAMS includes sandbox: an order it wins gets a SAMPLE label. Leave it out (${realUpstreams.join(', ')}).`
            : `Labels are bought at ${realUpstreams.join(', ')}.`,
    },
    {
      id: 'price_check',
      title: 'Price check',
      done: check !== null && !check.sandbox && check.negative === 0 && check.notRated === 0,
      detail:
        check === null
          ? 'No price check yet: run it on the Price check page once the upstream is set.'
          : check.sandbox
            ? `The last price check (${check.checkedAt}) asked the sandbox, not a real upstream.`
            : check.negative > 0 || check.notRated > 0
              ? `The price check of ${check.checkedAt} found ${plural(check.negative, 'price')} below the upstream's cost and ${plural(check.notRated, 'mapped service')} the upstream does not rate.`
              : `The price check of ${check.checkedAt} found every price above its upstream cost.`,
    },
    {
      id: 'backups',
      title: 'Backups',
      done: backupFresh,
      detail:
        (backupAt === null
          ? 'No npm run backup recorded in DATA_DIR: run it every day (cron) and keep the archives on another machine.'
          : backupFresh
            ? `Last npm run backup: ${backupAt}.`
            : `The last npm run backup was ${backupAt}, more than 2 days ago: is its schedule running?`) +
        (settings.postgres ? " On PostgreSQL the database itself is pg_dump's job." : ''),
    },
    {
      id: 'supervisor',
      title: 'Supervisor',
      done: settings.supervisor !== null,
      detail:
        settings.supervisor !== null
          ? `Restarted after a crash by ${settings.supervisor}.`
          : 'Started by none of npm start, systemd, Kubernetes or pm2: after a crash the shop stays down until someone starts it again.',
    },
  ];
}
