import type { CreateOrderBody } from '@portal/contract';
import type { FastifyInstance } from 'fastify';
import { fundUser, signUp, userIdOf } from './harness.ts';
import type { Db } from '../src/db/database.ts';

const US = {
  FromName: 'Jane Sender',
  FromStreet: '123 Main Street',
  FromStreet2: 'Suite 4',
  FromCity: 'New York',
  FromState: 'NY',
  FromZip: '10001',
  FromCountry: 'United States',
  ToName: 'John Receiver',
  ToCompany: 'Receiver Co',
  ToStreet: '456 Oak Avenue',
  ToCity: 'Beverly Hills',
  ToState: 'CA',
  ToZip: '90210',
  ToCountry: 'United States',
};

const CANADA = {
  FromName: 'Marie Expeditrice',
  FromStreet: '100 Wellington Street',
  FromCity: 'Ottawa',
  FromState: 'ON',
  FromZip: 'K1A 0B1',
  FromCountry: 'Canada',
  ToName: 'Paul Destinataire',
  ToStreet: '290 Bremner Blvd',
  ToCity: 'Toronto',
  ToState: 'ON',
  ToZip: 'M5V 3L9',
  ToCountry: 'Canada',
};

/** A valid create payload for a label type uid (priority gets the normal template). */
export function orderPayload(labelType: string, overrides: Partial<Record<keyof CreateOrderBody, unknown>> = {}): Record<string, unknown> {
  const parties = labelType.startsWith('ups_') ? CANADA : US;
  const weight = labelType === 'ground_oz' ? 6 : 2;
  return { labelType, design: labelType === 'priority' ? 'normal' : undefined, Weight: weight, ...parties, ...overrides };
}

/** A signed-in user funded with `cents` through the ledger. */
export async function fundedUser(app: FastifyInstance, db: Db, cents: number) {
  const user = await signUp(app);
  const userId = await userIdOf(app, user.headers);
  if (cents > 0) await fundUser(db, userId, cents);
  return { ...user, userId };
}

export async function balanceOf(app: FastifyInstance, headers: { authorization: string }): Promise<number> {
  return (await app.inject({ method: 'GET', url: '/api/v1/auth/access', headers })).json().balance;
}
