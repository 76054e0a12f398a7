import type { CreateOrderBody } from '@portal/contract';
import type { FastifyInstance } from 'fastify';
import { CA_RECIPIENT, CA_SENDER, orderParties } from './sample-addresses.ts';

// The US pair with a second street line and a company, so that those fields are carried too.
const US = { ...orderParties(), FromStreet2: 'Suite 4', ToCompany: 'Receiver Co' };
const CANADA = orderParties(CA_SENDER, CA_RECIPIENT);

/** A valid create payload for a label type uid (priority gets the normal template). */
export function orderPayload(labelType: string, overrides: Partial<Record<keyof CreateOrderBody, unknown>> = {}): Record<string, unknown> {
  const parties = labelType.startsWith('ups_') ? CANADA : US;
  const weight = labelType === 'ground_oz' ? 6 : 2;
  return { labelType, design: labelType === 'priority' ? 'normal' : undefined, Weight: weight, ...parties, ...overrides };
}

export async function balanceOf(app: FastifyInstance, headers: { authorization: string }): Promise<number> {
  return (await app.inject({ method: 'GET', url: '/api/v1/auth/access', headers })).json().balance;
}
