import { RECIPIENT_UNSUBSCRIBED, TRACKING_PAGE_NOT_FOUND, trackingPageResponse, trackingTokenParams } from '@portal/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Api, AppContext } from '../../app-context.ts';
import { addressKey } from '../../lib/attempt-limiter.ts';
import { HttpError } from '../../lib/http-errors.ts';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A small page of its own (the unsubscribe link opens from a mail, outside the app). */
const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;padding:24px;color:#222}
main{max-width:440px;margin:0 auto;background:#fff;border-radius:8px;padding:24px;box-shadow:0 1px 4px rgba(0,0,0,.15)}
button{font-size:1rem;padding:10px 16px;border-radius:6px;border:1px solid #888;cursor:pointer}</style></head>
<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;

/**
 * The recipient's public calls: no sign-in, the token is the key. Each is counted per address like the sign-in screens
 * (limiter.hit), and the token's form is checked (400) before anything is looked up; every unknown token is the same 404.
 */
export async function trackingPageRoutes(api: Api, ctx: AppContext) {
  const { trackingPages, limiter } = ctx;
  const counted = (route: string) => async (request: FastifyRequest) => limiter.hit(addressKey(route, request.ip));
  const schema = { params: trackingTokenParams };

  api.get('/track/:token', { schema: { ...schema, response: { 200: trackingPageResponse } }, preHandler: counted('track') }, async (request, reply) => {
    // The page is the link holder's; nothing shared caches it.
    reply.header('cache-control', 'private, no-store');
    return trackingPages.page(request.params.token);
  });

  const html = (reply: FastifyReply, status: number, title: string, body: string) =>
    reply.status(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page(title, body));
  const notFoundPage = (reply: FastifyReply, error: unknown) => {
    if (error instanceof HttpError && error.statusCode === 404) return html(reply, 404, TRACKING_PAGE_NOT_FOUND, '');
    throw error;
  };

  // Opening the link only asks: a mail scanner that follows links must not unsubscribe anyone. The button posts.
  await api.register(async (scope: Api) => {
    // The button's form (and a mail client's one-click unsubscribe) posts form data this call does not read.
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, _body, done) => done(null, {}));
    scope.get('/track/:token/unsubscribe', { schema, preHandler: counted('unsubscribe') }, async (request, reply) => {
      try {
        await trackingPages.exists(request.params.token);
      } catch (error) {
        return notFoundPage(reply, error);
      }
      return html(
        reply,
        200,
        'Stop parcel mails',
        '<p>Stop the mails about parcels from this sender to your address?</p><form method="post"><button type="submit">Stop the mails</button></form>',
      );
    });
    scope.post('/track/:token/unsubscribe', { schema, preHandler: counted('unsubscribe') }, async (request, reply) => {
      try {
        await trackingPages.unsubscribe(request.params.token);
      } catch (error) {
        return notFoundPage(reply, error);
      }
      return html(reply, 200, 'Unsubscribed', `<p>${escapeHtml(RECIPIENT_UNSUBSCRIBED)}</p>`);
    });
  });
}
