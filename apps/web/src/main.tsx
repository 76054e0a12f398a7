import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import 'bootstrap/dist/css/bootstrap.min.css';
import './styles.css';
import { App } from './app.tsx';
import { getToken } from './api/session.ts';
import { ToastHost } from './components/toast.tsx';
import { preloadSignedInScreen } from './router.tsx';

// The site's security policy forbids eval. zod keeps its settings (what z.config sets) in this global,
// so it checks without compiling code rather than probing with new Function, which the browser would
// refuse and report. Set here so the first load does not carry zod's config module.
const zodSettings = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
Object.assign((zodSettings.__zod_globalConfig ??= {}), { jitless: true });

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false, staleTime: 10_000 } },
});

// The screen's code is asked for before anything renders (the access check's answer decides only which router shows it).
if (getToken()) preloadSignedInScreen(window.location.pathname);

// The first render is a transition: React renders it in slices of a few milliseconds and lets the
// browser in between, rather than in one long task that blocks the page while the screen is built.
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
