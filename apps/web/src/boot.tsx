import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App } from './app.tsx';
import { getToken } from './api/session.ts';
import { ToastHost } from './components/toast.tsx';
import { preloadScreen } from './router.tsx';

// The site's security policy forbids eval. zod keeps its settings (what z.config sets) in this global,
// so it checks without compiling code rather than probing with new Function, which the browser would
// refuse and report. Set here so the first load does not carry zod's config module.
const zodSettings = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
Object.assign((zodSettings.__zod_globalConfig ??= {}), { jitless: true });

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false, staleTime: 10_000 } },
});

// The screen's code is asked for before anything renders (the access check's answer decides only which router shows it).
preloadScreen(window.location.pathname, Boolean(getToken()));

// The first render is a transition: React renders it in slices of a few milliseconds and lets the
// browser in between, rather than in one long task that blocks the page while the screen is built.
const render = () => {
  const root = createRoot(document.getElementById('root')!);
  startTransition(() =>
    root.render(
      <StrictMode>
        <QueryClientProvider client={queryClient}>
          <App />
          <ToastHost />
        </QueryClientProvider>
      </StrictMode>,
    ),
  );
};

/**
 * The built page's stylesheet comes as a preload of low priority (vite.config.ts), which does not hold back the first
 * paint: applied now, the screens render once it is (a failed one too).
 */
function applyStylesheet(): Promise<unknown> {
  const link = document.querySelector<HTMLLinkElement>('link[data-app-style]');
  if (!link) return Promise.resolve(); // the dev server adds its styles from the modules
  const applied = new Promise((resolve) => {
    link.addEventListener('load', resolve, { once: true });
    link.addEventListener('error', resolve, { once: true });
  });
  link.rel = 'stylesheet';
  return applied;
}

void applyStylesheet().then(render);
