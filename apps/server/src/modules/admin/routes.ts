import {
  adjustBalanceBody,
  adjustBalanceHeaders,
  adjustBalanceResponse,
  adminBulkOrdersQuery,
  adminBulkOrdersResponse,
  adminContentResponse,
  adminInvoicesQuery,
  adminInvoicesResponse,
  adminLabelTypeChangeResponse,
  adminLabelTypesResponse,
  adminOrderDetailResponse,
  adminOrdersQuery,
  adminOrdersResponse,
  adminPageQuery,
  adminStatementResponse,
  adminUserChangeResponse,
  adminUserInvoicesResponse,
  adminUserResponse,
  adminUsersQuery,
  adminUsersResponse,
  announcementBody,
  auditQuery,
  auditResponse,
  cancelOrderBody,
  adminRefundsQuery,
  adminRefundsResponse,
  rejectRefundBody,
  faqBody,
  faqCreatedResponse,
  faqOrderBody,
  fedexPriceBody,
  fedexPriceResponse,
  idParams,
  messageResponse,
  outboxResponse,
  overviewResponse,
  goingLiveResponse,
  adminUpstreamServicesResponse,
  adminUpstreamHealthResponse,
  adminUpstreamServiceChangeResponse,
  updateUpstreamServiceBody,
  upstreamParams,
  UPSTREAM_TITLES,
  tosBody,
  TOS_BODY_MAX_BYTES,
  tosChangeResponse,
  updateLabelTypeBody,
  userRoleBody,
  userStatusBody,
} from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';
import { linkOrigin } from '../../lib/link-origin.ts';

/** Another module's console routes, registered inside the guarded scope (paths relative to /api/v1/admin). */
export type AdminRoutePlugin = (scope: Api, ctx: AppContext) => Promise<void>;

/**
 * The operator console, /api/v1/admin/...: one guard for the whole prefix, run first on every
 * request (before the body is read or checked): 401 without a valid token, 403 for a customer.
 * `more` are other modules' console routes (the FedEx queue), guarded by the same hook.
 */
export async function adminRoutes(api: Api, ctx: AppContext, more: AdminRoutePlugin[] = []) {
  const { admin, requireAdmin } = ctx;

  await api.register(
    async (scope: Api) => {
      scope.addHook('onRequest', requireAdmin);

      scope.get('/overview', { schema: { response: { 200: overviewResponse } } }, () => admin.overview());
      // The checklist says what links made for this very request would point to (Add Balance's payment page).
      scope.get('/going-live', { schema: { response: { 200: goingLiveResponse } } }, (request) =>
        admin.goingLive({ requestOrigin: `${request.protocol}://${request.host}`, linkOrigin: linkOrigin(ctx.config, request) }),
      );

      // ---- Users ----
      scope.get('/users', { schema: { querystring: adminUsersQuery, response: { 200: adminUsersResponse } } }, (request) => admin.users(request.query));
      scope.get('/users/:id', { schema: { params: idParams, response: { 200: adminUserResponse } } }, async (request) => ({
        user: await admin.user(request.params.id),
      }));
      scope.get('/users/:id/statement', { schema: { params: idParams, querystring: adminPageQuery, response: { 200: adminStatementResponse } } }, (request) =>
        admin.statement(request.params.id, request.query),
      );
      scope.get('/users/:id/invoices', { schema: { params: idParams, querystring: adminPageQuery, response: { 200: adminUserInvoicesResponse } } }, (request) =>
        admin.invoicesOf(request.params.id, request.query),
      );
      // Idempotency-Key: the console sends one per form submission, so a request sent again does not credit twice.
      scope.post(
        '/users/:id/adjust',
        { schema: { params: idParams, headers: adjustBalanceHeaders, body: adjustBalanceBody, response: { 200: adjustBalanceResponse } } },
        async (request) => {
          const balance = await admin.adjust(request.userId, request.params.id, request.body, request.headers['idempotency-key']);
          return { message: request.body.direction === 'credit' ? 'Balance credited' : 'Balance debited', balance };
        },
      );
      scope.post('/users/:id/status', { schema: { params: idParams, body: userStatusBody, response: { 200: adminUserChangeResponse } } }, async (request) => {
        const user = await admin.setDisabled(request.userId, request.params.id, request.body.disabled);
        return { message: user.disabled ? 'Account disabled' : 'Account enabled', user };
      });
      scope.post('/users/:id/role', { schema: { params: idParams, body: userRoleBody, response: { 200: adminUserChangeResponse } } }, async (request) => {
        const user = await admin.setRole(request.userId, request.params.id, request.body.role);
        return { message: `Role set to ${user.role}`, user };
      });

      // ---- Label types and prices ----
      scope.get('/label-types', { schema: { response: { 200: adminLabelTypesResponse } } }, async () => ({ labelTypes: await admin.labelTypes() }));
      scope.put(
        '/label-types/:id',
        { schema: { params: idParams, body: updateLabelTypeBody, response: { 200: adminLabelTypeChangeResponse } } },
        async (request) => ({
          message: 'Label type saved; new orders use it',
          labelType: await admin.updateLabelType(request.userId, request.params.id, request.body),
        }),
      );
      scope.get('/upstream-services', { schema: { response: { 200: adminUpstreamServicesResponse } } }, () => admin.upstreamServices());
      scope.get('/upstream-health', { schema: { response: { 200: adminUpstreamHealthResponse } } }, () => admin.upstreamHealth());
      scope.put(
        '/label-types/:id/upstream/:upstream',
        { schema: { params: upstreamParams, body: updateUpstreamServiceBody, response: { 200: adminUpstreamServiceChangeResponse } } },
        async (request) => {
          const { id, upstream: name } = request.params;
          const upstream = await admin.updateUpstreamService(request.userId, id, name, request.body);
          const title = UPSTREAM_TITLES[name];
          return {
            message: upstream
              ? `${title} service saved; new orders bought at ${title} are bought as it`
              : `${title} service removed; the type is not bought at ${title}`,
            upstream,
          };
        },
      );
      scope.get('/fedex-price', { schema: { response: { 200: fedexPriceResponse } } }, async () => ({ price: await admin.fedexPrice() }));
      scope.put('/fedex-price', { schema: { body: fedexPriceBody, response: { 200: fedexPriceResponse } } }, async (request) => ({
        price: await admin.setFedexPrice(request.userId, request.body.price),
      }));

      // ---- Content ----
      scope.get('/content', { schema: { response: { 200: adminContentResponse } } }, () => admin.content());
      scope.put('/content/announcement', { schema: { body: announcementBody, response: { 200: messageResponse } } }, async (request) => {
        await admin.setAnnouncement(request.userId, request.body);
        return { message: 'Announcement saved' };
      });
      scope.put('/content/tos', { bodyLimit: TOS_BODY_MAX_BYTES, schema: { body: tosBody, response: { 200: tosChangeResponse } } }, async (request) => ({
        message: 'Terms saved',
        tos: await admin.setTos(request.userId, request.body.tos),
      }));
      scope.post('/faqs', { schema: { body: faqBody, response: { 200: faqCreatedResponse } } }, async (request) => ({
        message: 'FAQ added',
        _id: await admin.createFaq(request.userId, request.body),
      }));
      scope.put('/faqs/:id', { schema: { params: idParams, body: faqBody, response: { 200: messageResponse } } }, async (request) => {
        await admin.updateFaq(request.userId, request.params.id, request.body);
        return { message: 'FAQ saved' };
      });
      scope.delete('/faqs/:id', { schema: { params: idParams, response: { 200: messageResponse } } }, async (request) => {
        await admin.deleteFaq(request.userId, request.params.id);
        return { message: 'FAQ deleted' };
      });
      scope.put('/faqs-order', { schema: { body: faqOrderBody, response: { 200: messageResponse } } }, async (request) => {
        await admin.reorderFaqs(request.userId, request.body.ids);
        return { message: 'FAQ order saved' };
      });

      // ---- Orders, bulk orders, invoices ----
      scope.get('/orders', { schema: { querystring: adminOrdersQuery, response: { 200: adminOrdersResponse } } }, (request) => admin.orders(request.query));
      scope.get('/orders/:id', { schema: { params: idParams, response: { 200: adminOrderDetailResponse } } }, (request) => admin.order(request.params.id));
      scope.get('/orders/:id/label', { schema: { params: idParams } }, async (request, reply) => {
        const { tracking, pdf } = await admin.labelPdf(request.params.id);
        return reply
          .type('application/pdf')
          .header('content-disposition', `attachment; filename="${tracking}.pdf"`)
          .header('cache-control', 'private, no-store')
          .send(pdf);
      });
      scope.get('/refunds', { schema: { querystring: adminRefundsQuery, response: { 200: adminRefundsResponse } } }, (request) => admin.refunds(request.query));
      scope.post('/orders/:id/refund/approve', { schema: { params: idParams, response: { 200: messageResponse } } }, async (request) => {
        await admin.approveRefund(request.userId, request.params.id);
        return { message: 'Refund approved and credited' };
      });
      scope.post('/orders/:id/refund/reject', { schema: { params: idParams, body: rejectRefundBody, response: { 200: messageResponse } } }, async (request) => {
        await admin.rejectRefund(request.userId, request.params.id, request.body.reason);
        return { message: 'Refund rejected' };
      });
      scope.post('/orders/:id/cancel', { schema: { params: idParams, body: cancelOrderBody, response: { 200: messageResponse } } }, async (request) => {
        return { message: await admin.cancelOrder(request.userId, request.params.id, request.body.reason) };
      });
      scope.get('/bulk-orders', { schema: { querystring: adminBulkOrdersQuery, response: { 200: adminBulkOrdersResponse } } }, (request) =>
        admin.bulkOrders(request.query),
      );
      scope.get('/invoices', { schema: { querystring: adminInvoicesQuery, response: { 200: adminInvoicesResponse } } }, (request) =>
        admin.invoices(request.query),
      );

      // ---- Audit log and outbox ----
      scope.get('/audit', { schema: { querystring: auditQuery, response: { 200: auditResponse } } }, (request) => admin.audit(request.query));
      scope.get('/outbox', { schema: { querystring: adminPageQuery, response: { 200: outboxResponse } } }, (request) => admin.outbox(request.query));

      for (const routes of more) await routes(scope, ctx);
    },
    { prefix: '/admin' },
  );
}
