import type { FastifyInstance } from 'fastify';
import { signUp, userIdOf, type TestApp } from './harness.ts';

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
export const adminCall = (app: FastifyInstance, headers: Headers | Record<string, never>, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) =>
  app.inject({ method, url: `/api/v1/admin${path}`, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

/** The audit rows about one target, oldest first. */
export const auditRowsFor = (t: TestApp, targetId: string) => t.db.selectFrom('audit_log').selectAll().where('target_id', '=', targetId).orderBy('created_at').execute();

/**
 * Every route the app serves under /api/v1/admin as 'METHOD /path', read from Fastify's route tree
 * (HEAD and OPTIONS left out), so a test can check it calls them all.
 */
export function adminRoutesOf(app: FastifyInstance): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+) \(([^)]+)\)$/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4;
    const path = (stack[depth - 1] ?? '') + match[2];
    stack[depth] = path;
    stack.length = depth + 1;
    if (!path.startsWith('/api/v1/admin')) continue;
    for (const method of match[3].split(', ')) if (method !== 'HEAD' && method !== 'OPTIONS') routes.push(`${method} ${path.slice('/api/v1/admin'.length)}`);
  }
  return routes.sort();
}
