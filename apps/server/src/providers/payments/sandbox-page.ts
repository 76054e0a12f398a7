import crypto from 'node:crypto';
import { z } from 'zod';
import { bonusCents, bonusPercent, centsToDollars } from '@portal/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../app-context.ts';
import { HttpError, notFound } from '../../lib/http-errors.ts';
import { SANDBOX_SIGNATURE_HEADER, isSandbox, type SandboxInvoice } from './sandbox.ts';

const WEBHOOK_PATH = '/api/v1/invoices/webhook/sandbox';

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
/** Without the script (or before it runs) the expiry reads in UTC; the script shows it in the reader's time zone. */
const utcDateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/**
 * The page's only script (served from here: the CSP allows no inline script). It writes the expiry
 * as a local date-time and counts down to it every second.
 */
const COUNTDOWN_SCRIPT = `(() => {
  const el = document.querySelector('time[data-expires]');
  const left = document.querySelector('[data-countdown]');
  if (!el || !left) return;
  const at = new Date(el.getAttribute('datetime'));
  el.textContent = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(at);
  const two = (n) => String(n).padStart(2, '0');
  const tick = () => {
    const s = Math.max(0, Math.floor((at.getTime() - Date.now()) / 1000));
    left.textContent = s === 0 ? 'Expired: reload the page' : (s >= 3600 ? Math.floor(s / 3600) + ':' : '') + two(Math.floor((s % 3600) / 60)) + ':' + two(s % 60) + ' left';
    if (s > 0) setTimeout(tick, 1000 - (Date.now() % 1000));
  };
  tick();
})();
`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Looks like a testnet address so the page resembles a real checkout; it is no wallet of anyone's. */
const sampleAddress = (id: string) => `tb1qsample${crypto.createHash('sha256').update(id).digest('hex').slice(0, 30)}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;padding:24px;color:#222}
main{max-width:440px;margin:0 auto;background:#fff;border-radius:8px;padding:24px;box-shadow:0 1px 4px rgba(0,0,0,.15)}
.banner{background:#fff3cd;border:2px dashed #d39e00;color:#6b4f00;font-weight:700;text-align:center;padding:8px;border-radius:6px;margin-bottom:16px}
.amount{font-size:2rem;font-weight:700;margin:8px 0}
.qr{text-align:center;margin:16px 0}.qr svg{width:200px;height:200px}
code{word-break:break-all;background:#f0f0f0;padding:2px 4px;border-radius:4px}
form{display:inline-block;margin:8px 8px 0 0}
button{font-size:1rem;padding:10px 16px;border-radius:6px;border:1px solid #888;cursor:pointer}
.pay{background:#198754;color:#fff;border-color:#198754}.muted{color:#666;font-size:.9rem}
</style></head>
<body><main><div class="banner">SANDBOX &mdash; no real payment. Test mode only.</div>${body}</main></body></html>`;
}

/** The shop's deposit bonus, shown before paying (the shop's rule, the same one the deposit is credited by). */
function bonusLine(amountCents: number): string {
  const percent = bonusPercent(centsToDollars(amountCents));
  if (percent === 0) return '';
  const bonus = bonusCents(amountCents, percent);
  return `<p data-bonus>+ ${percent}% deposit bonus: ${dollars.format(centsToDollars(bonus))}, so ${dollars.format(centsToDollars(amountCents + bonus))} is credited to your balance</p>`;
}

async function invoicePage(invoice: SandboxInvoice): Promise<string> {
  const amount = dollars.format(centsToDollars(invoice.amount_cents));
  const back = `<p><a href="${escapeHtml(invoice.return_url)}">Back to deposits</a></p>`;
  if (invoice.state === 'paid') return page('Payment received', `<h1>Payment received</h1><p class="amount">${amount}</p>${back}`);
  if (invoice.state !== 'pending')
    return page('Invoice expired', `<h1>Invoice expired</h1><p class="amount">${amount}</p><p>This invoice can no longer be paid.</p>${back}`);
  const address = sampleAddress(invoice.id);
  // The barcode library (7 MB) loads with the first pay page, not with the process.
  const { toSVG } = await import('bwip-js/node');
  const qr = toSVG({ bcid: 'qrcode', text: `bitcoin:${address}?label=SANDBOX`, scale: 3 });
  const button = (action: string, label: string, cls = '') =>
    `<form method="post" action="/pay/${escapeHtml(invoice.id)}/simulate"><input type="hidden" name="action" value="${action}"><button type="submit" class="${cls}">${label}</button></form>`;
  return page(
    'Sandbox crypto invoice',
    `<h1>Crypto invoice</h1>
<p class="amount">${amount}</p>${bonusLine(invoice.amount_cents)}
<p class="muted">Invoice ${escapeHtml(invoice.id)}</p>
<p>Expires <time datetime="${escapeHtml(invoice.expires_at)}" data-expires>${escapeHtml(utcDateTime.format(new Date(invoice.expires_at)))} UTC</time>
&middot; <strong data-countdown></strong></p>
<div class="qr">${qr}</div>
<p>Sample address (not a real wallet):<br><code>${escapeHtml(address)}</code></p>
<p class="muted">Nothing is charged. The buttons below send the same signed webhook a real provider would.</p>
${button('pay', 'Simulate payment', 'pay')}${button('expire', 'Simulate expiry')}
${back}<script src="/pay/countdown.js"></script>`,
  );
}

/**
 * The sandbox provider's hosted page, /pay/{id}, served by our own server. Off (404) unless the
 * sandbox is the configured provider. Its buttons post back here; the handler settles or expires the
 * sandbox invoice and delivers the signed webhook to our webhook endpoint, then returns to /deposits.
 */
export async function sandboxPayRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  if (isSandbox(ctx.payments))
    app.log.warn('PAYMENT_PROVIDER=sandbox: deposits are simulated and credited without real money; set PAYMENT_PROVIDER=btcpay in production');
  await app.register(async (plugin) => {
    const pages = plugin.withTypeProvider<ZodTypeProvider>();
    pages.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    const sandbox = () => {
      if (!isSandbox(ctx.payments)) throw notFound();
      return ctx.payments;
    };
    const params = z.object({ id: z.string().min(1).max(64) });

    pages.get('/pay/countdown.js', async (_request, reply) => {
      sandbox();
      return reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(COUNTDOWN_SCRIPT);
    });

    pages.get('/pay/:id', { schema: { params } }, async (request, reply) => {
      const invoice = await sandbox().findInvoice(request.params.id);
      if (!invoice) throw notFound('Invoice not found');
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(await invoicePage(invoice));
    });

    pages.post(
      '/pay/:id/simulate',
      { schema: { params, body: z.object({ action: z.enum(['pay', 'expire'], { error: 'action must be pay or expire' }) }) } },
      async (request, reply) => {
        const provider = sandbox();
        const invoice = await provider.findInvoice(request.params.id);
        if (!invoice) throw notFound('Invoice not found');
        const delivery = await provider.simulate(invoice.id, request.body.action);
        // No longer open (paid, expired, or clicked twice): show it as it is.
        if (!delivery) return reply.redirect(`/pay/${invoice.id}`, 303);
        const response = await app.inject({
          method: 'POST',
          url: WEBHOOK_PATH,
          headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: delivery.signature },
          payload: delivery.body,
        });
        if (response.statusCode !== 200) {
          request.log.error({ status: response.statusCode, body: response.body, invoiceId: invoice.id }, 'sandbox webhook was not accepted');
          throw new HttpError(502, 'The sandbox webhook was not accepted');
        }
        return reply.redirect(invoice.return_url, 303);
      },
    );
  });
}
