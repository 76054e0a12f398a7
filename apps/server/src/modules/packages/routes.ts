import {
  PACKAGE_CREATED,
  PACKAGE_DELETED,
  PACKAGE_UPDATED,
  idParams,
  messageResponse,
  packageBody,
  packageListResponse,
  packageSavedResponse,
} from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';

/** The customer's saved packages, /api/v1/packages (inside the signed-in scope of app.ts). */
export async function packageRoutes(api: Api, ctx: AppContext) {
  const { packages } = ctx;

  api.get('/packages', { schema: { response: { 200: packageListResponse } } }, async (request) => ({ packages: await packages.list(request.userId) }));

  api.post('/packages', { schema: { body: packageBody, response: { 200: packageSavedResponse } } }, async (request) => ({
    message: PACKAGE_CREATED,
    package: await packages.create(request.userId, request.body),
  }));

  api.put('/packages/:id', { schema: { params: idParams, body: packageBody, response: { 200: packageSavedResponse } } }, async (request) => ({
    message: PACKAGE_UPDATED,
    package: await packages.update(request.userId, request.params.id, request.body),
  }));

  api.delete('/packages/:id', { schema: { params: idParams, response: { 200: messageResponse } } }, async (request) => {
    await packages.remove(request.userId, request.params.id);
    return { message: PACKAGE_DELETED };
  });
}
