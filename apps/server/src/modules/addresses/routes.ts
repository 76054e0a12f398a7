import {
  ADDRESS_CREATED,
  ADDRESS_DELETED,
  ADDRESS_UPDATED,
  addressBody,
  addressCheckBody,
  addressCheckResponse,
  addressListResponse,
  idParams,
  messageResponse,
} from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';

export async function addressRoutes(api: Api, ctx: AppContext) {
  const { addresses } = ctx;

  api.get('/address/readAll', { schema: { response: { 200: addressListResponse } } }, async (request) => ({
    addresses: await addresses.list(request.userId),
  }));

  api.post('/address/create', { schema: { body: addressBody, response: { 200: messageResponse } } }, async (request) => {
    await addresses.create(request.userId, request.body);
    return { message: ADDRESS_CREATED };
  });

  api.put('/address/update/:id', { schema: { params: idParams, body: addressBody, response: { 200: messageResponse } } }, async (request) => {
    await addresses.update(request.userId, request.params.id, request.body);
    return { message: ADDRESS_UPDATED };
  });

  // The carrier's word on an address as typed (EASYPOST_VERIFY_ADDRESSES): the form offers its corrected lines before paying.
  api.post('/address/verify', { schema: { body: addressCheckBody, response: { 200: addressCheckResponse } } }, (request) =>
    ctx.addressVerifier.check({ ...request.body, country: request.body.country || 'United States', phone: '' }),
  );

  api.delete('/address/delete/:id', { schema: { params: idParams, response: { 200: messageResponse } } }, async (request) => {
    await addresses.remove(request.userId, request.params.id);
    return { message: ADDRESS_DELETED };
  });
}
