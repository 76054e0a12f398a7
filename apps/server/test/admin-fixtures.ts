import type { FastifyInstance } from 'fastify';
import { routesUnder, signUp, userIdOf, type TestApp } from './harness.ts';

export type Headers = { authorization: string };

/** A signed-in user made admin the way `npm run admin -- grant` does it: the role column. */
export async function signUpAdmin(t: TestApp) {
  const user = await signUp(t.app);
  const userId = await userIdOf(t.app, user.headers);
  await t.db.updateTable('users').set({ role: 'admin' }).where('id', '=', userId).execute();
  return { ...user, userId };
}

/** A signed-in customer with its id. */
export async function signUpCustomer(t: TestApp) {
  const user = await signUp(t.app);
  return { ...user, userId: await userIdOf(t.app, user.headers) };
}

/** Calls /api/v1/admin{path}. */
export const adminCall = (
  app: FastifyInstance,
  headers: Headers | Record<string, never>,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  payload?: unknown,
) => app.inject({ method, url: `/api/v1/admin${path}`, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

/** The audit rows about one target, oldest first. */
export const auditRowsFor = (t: TestApp, targetId: string) =>
  t.db.selectFrom('audit_log').selectAll().where('target_id', '=', targetId).orderBy('created_at').execute();

/** Every route the app serves under /api/v1/admin as 'METHOD /path', so a test can check it calls them all. */
export const adminRoutesOf = (app: FastifyInstance): string[] => routesUnder(app, '/api/v1/admin');
