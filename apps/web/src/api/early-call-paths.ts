/**
 * The GET calls a signed-in first load makes before anything shows, by screen: early-calls.ts starts them with the
 * page's first script. Each path is spelled exactly as the screen's own call spells it (the history's query in
 * readOrders' order), so the screen takes the answer instead of asking again; e2e/web-patterns.test.ts checks that
 * every one is asked once. No imports: this module is the early script's, which must stay free of the app's chunks.
 * See ARCHITECTURE.md#early-calls.
 */
/** The dashboard's first page of Order History (DASHBOARD_PAGE_SIZE rows) and its order count. */
const DASHBOARD = ['/announcement/read', '/order/read?search=&status=all&sort=desc&page=1&limit=1', '/config'];

export function earlyCallPaths(pathname: string, search: string): string[] {
  const screen = screenOf(pathname);
  const calls = ['/auth/access'];
  // The history's own page (?page=2, a search) is read by the screen itself.
  if (screen === '/') calls.push(...DASHBOARD, ...(search ? [] : ['/order/read?search=&status=all&sort=desc&page=1&limit=10']));
  if (screen === '/createorders') calls.push('/labeltype/read', '/address/readAll', '/packages');
  return calls;
}

/**
 * The modules of the screens above, under src/: their chunks are fetched by early-calls.ts beside React's (the build
 * lists the files in index.html) instead of once React's chunk has run and the router asks for them.
 */
export const EARLY_SCREEN_MODULES: Record<string, string[]> = {
  '/': ['components/layout.tsx', 'features/dashboard/dashboard-page.tsx'],
  '/createorders': ['components/layout.tsx', 'features/create-order/create-order-page.tsx'],
  // A visitor's / and /login: no data to ask for, but the form's chunks come beside React's, not after it.
  'sign-in': ['features/auth/sign-in-page.tsx'],
};

/** The screen of a path as the tables above name it, for a signed-in user or a visitor. */
export function screenOf(pathname: string, signedIn = true): string {
  const path = pathname.replace(/\/+$/, '').toLowerCase() || '/';
  return signedIn ? path : path === '/' || path === '/login' ? 'sign-in' : path;
}
