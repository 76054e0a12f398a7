import { centsToDollars, dollarsToCents, labelTypesResponse, priceBody, priceResponse } from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';
import { badRequest } from '../../lib/http-errors.ts';
import { insurancePriceFor, toLabelType } from './service.ts';

export async function catalogRoutes(api: Api, ctx: AppContext) {
  const { catalog } = ctx;

  api.get('/labeltype/read', { schema: { response: { 200: labelTypesResponse } } }, async () => ({
    labelTypes: (await catalog.enabledTypes()).map(toLabelType),
  }));

  api.post('/order/price', { schema: { body: priceBody, response: { 200: priceResponse } } }, async (request) => {
    const { priceCents } = await catalog.quote(request.body.labelType, request.body.weight);
    if (!request.body.insurance) return { price: centsToDollars(priceCents) };
    const insurance = insurancePriceFor(catalog.insurance, dollarsToCents(request.body.insurance));
    if (!insurance.ok) throw badRequest(insurance.message);
    return { price: centsToDollars(priceCents), insurance: centsToDollars(insurance.priceCents) };
  });
}
