import { Suspense, lazy, useSyncExternalStore } from 'react';
import type { ToastContent, ToastOptions } from 'react-toastify';

/**
 * Toasts (react-toastify: top-right, 5000 ms, pause on hover), kept out of a first load: the
 * library is fetched the first time a screen shows a toast, and its container mounts then.
 * react-toastify holds a toast raised before any container exists and shows it once one mounts.
 */
let wanted = false;
const listeners = new Set<() => void>();
function library() {
  if (!wanted) {
    wanted = true;
    listeners.forEach((listener) => listener());
  }
  return import('react-toastify');
}

const show =
  (kind: 'success' | 'error' | 'warn') =>
  (content: ToastContent, options?: ToastOptions): void => {
    void library().then(({ toast }) => toast[kind](content, options));
  };

/** Takes a toast raised with `{ toastId }` away, once what it said no longer holds. */
const dismiss = (toastId: string): void => {
  if (wanted) void library().then(({ toast }) => toast.dismiss(toastId));
};

export const toast = { success: show('success'), error: show('error'), warn: show('warn'), dismiss };

const ToastContainer = lazy(async () => ({ default: (await library()).ToastContainer }));
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** Where toasts show, once the first one is raised. */
export function ToastHost() {
  const shown = useSyncExternalStore(subscribe, () => wanted);
  if (!shown) return null;
  return (
    <Suspense fallback={null}>
      <ToastContainer position="top-right" autoClose={5000} pauseOnHover />
    </Suspense>
  );
}
