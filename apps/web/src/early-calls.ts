/**
 * The first script of the built page: an entry of its own that shares no module with the app, so it runs as soon as it
 * arrives instead of after React's chunk. For a signed-in load it asks for the access check and the data of the screen
 * at the address while the app's code is still on its way; client.ts hands each answer to the app's own first call of
 * that path, once. For any load it asks for the screen's chunks. Without it (the dev server) the app simply makes its
 * calls itself. See ARCHITECTURE.md#early-calls.
 */
import { earlyCallPaths, screenOf } from './api/early-call-paths.ts';

const token = /(?:^|;\s*)token=([^;]*)/.exec(document.cookie)?.[1];
if (token) {
  const api = `${import.meta.env.VITE_API_HOST ?? ''}/api/v1`;
  const headers = { authorization: `Bearer ${decodeURIComponent(token)}` };
  // Both scripts load async: an app that ran first (it sets portalEarlyCalls, see client.ts) makes its calls itself,
  // and asking them here too would ask each twice.
  if (!window.portalEarlyCalls) {
    const calls = new Map(earlyCallPaths(window.location.pathname, window.location.search).map((path) => [path, fetch(`${api}${path}`, { headers })]));
    // An answer not taken by the first render is dropped: a later visit of that screen reads afresh.
    for (const call of calls.values()) call.catch(() => undefined);
    window.portalEarlyCalls = calls;
    setTimeout(() => calls.clear(), 15_000);
  }
}

// The screen's chunks (a visitor's sign-in page's too), fetched (not run) beside React's once the page's spinner is
// painted, as the app's entry does (main.tsx): the build lists them by screen in index.html.
const chunks: Record<string, string[]> = JSON.parse(document.getElementById('screen-chunks')?.textContent || '{}');
requestAnimationFrame(() =>
  setTimeout(() => {
    for (const file of chunks[screenOf(window.location.pathname, Boolean(token))] ?? []) {
      const link = Object.assign(document.createElement('link'), { rel: 'modulepreload', href: `/${file}` });
      link.crossOrigin = '';
      link.dataset.early = ''; // told apart from the links the router's own imports add
      document.head.append(link);
    }
  }),
);
