import {
  idParams,
  messageResponse,
  priceCheckQuery,
  priceCheckResponse,
  referencePackageBody,
  referencePackageChangeResponse,
  referencePackagesResponse,
} from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';

/**
 * The console's price check and its reference packages, registered by app.ts inside the console's scope
 * (/api/v1/admin, one guard for the whole prefix); the console's service hands each change its audit hook.
 */
export async function adminPriceCheckRoutes(scope: Api, ctx: AppContext) {
  const { admin } = ctx;

  scope.get('/price-check', { schema: { querystring: priceCheckQuery, response: { 200: priceCheckResponse } } }, (request) =>
    admin.priceCheck(request.query.refresh === 'true'),
  );

  scope.get('/reference-packages', { schema: { response: { 200: referencePackagesResponse } } }, async () => ({
    packages: await admin.referencePackages(),
  }));
  scope.post('/reference-packages', { schema: { body: referencePackageBody, response: { 200: referencePackageChangeResponse } } }, async (request) => ({
    message: 'Reference package added',
    package: await admin.addReferencePackage(request.userId, request.body),
  }));
  scope.put(
    '/reference-packages/:id',
    { schema: { params: idParams, body: referencePackageBody, response: { 200: referencePackageChangeResponse } } },
    async (request) => ({
      message: 'Reference package saved',
      package: await admin.updateReferencePackage(request.userId, request.params.id, request.body),
    }),
  );
  scope.delete('/reference-packages/:id', { schema: { params: idParams, response: { 200: messageResponse } } }, async (request) => {
    await admin.deleteReferencePackage(request.userId, request.params.id);
    return { message: 'Reference package deleted' };
  });
}
