import { centsToDollars, labelTypesResponse, priceBody, priceResponse } from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';
import { toLabelType } from './service.ts';

export async function catalogRoutes(api: Api, ctx: AppContext) {
  const { catalog } = ctx;

  api.get('/labeltype/read', { schema: { response: { 200: labelTypesResponse } } }, async () => ({
    labelTypes: (await catalog.enabledTypes()).map(toLabelType),
  }));

  api.post('/order/price', { schema: { body: priceBody, response: { 200: priceResponse } } }, async (request) => {
    const { priceCents } = await catalog.quote(request.body.labelType, request.body.weight);
    return { price: centsToDollars(priceCents) };
  });
}
