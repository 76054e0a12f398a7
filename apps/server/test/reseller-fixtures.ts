import type { FastifyInstance, InjectOptions } from 'fastify';
import { RESELLER_API_PREFIX } from '@portal/contract';
import { fundedCustomer } from './customers.ts';
import type { Db } from '../src/db/database.ts';
import { orderParties } from './sample-addresses.ts';

/** A funded user with its API key (as Account Setting shows it). */
export async function resellerUser(app: FastifyInstance, db: Db, cents: number) {
  const user = await fundedCustomer(app, cents, db);
  const apiKey: string = (await app.inject({ method: 'GET', url: '/api/v1/auth/access', headers: user.headers })).json().api_key;
  return { ...user, apiKey };
}

/** A call to the reseller API with this key (none when undefined). */
export function callApi(
  app: FastifyInstance,
  apiKey: string | undefined,
  method: InjectOptions['method'],
  path: string,
  options: Omit<InjectOptions, 'method' | 'url'> = {},
) {
  const headers = { ...(apiKey === undefined ? {} : { 'x-api-key': apiKey }), ...(options.headers ?? {}) } as Record<string, string>;
  return app.inject({ ...options, method, url: `${RESELLER_API_PREFIX}${path}`, headers });
}

/** The order fields of a valid priority label (US addresses, 2 lb). */
export const labelFields = (overrides: Record<string, string | number> = {}): Record<string, string | number> => ({
  labelType: 'priority',
  design: 'normal',
  Weight: 2,
  ...orderParties(),
  ...overrides,
});

/** One object of a bulk order's data. */
export const bulkRow = (i: number, overrides: Record<string, string | number> = {}): Record<string, string | number> => ({
  ...orderParties(),
  FromName: `Sender ${i}`,
  ToName: `Receiver ${i}`,
  ToStreet: `${100 + i} Oak Avenue`,
  Weight: 2,
  Reference: `REF-${i}`,
  ...overrides,
});

export const urlencoded = (fields: Record<string, string | number>) => new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, String(v)])).toString();
