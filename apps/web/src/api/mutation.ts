import { useRef, type ReactNode } from 'react';
import { useMutation, useQueryClient, type MutateOptions, type QueryKey } from '@tanstack/react-query';
import { toast } from '../components/toast.tsx';
import { errorMessage } from './client.ts';

export type ApiMutationOptions<Vars, Data> = {
  /** The call to the server. */
  call: (vars: Vars) => Promise<Data>;
  /** What the answer changes besides the cache (a saved token, a file handed to the browser), before the queries below are fetched again. */
  onSuccess?: (data: Data, vars: Vars) => unknown;
  /** The queries the change makes stale: fetched again before the call counts as done, so the screen shows the change when its busy state ends. */
  invalidates?: readonly QueryKey[];
  /** Fetch them again after a refusal too: the server may have moved on regardless (a refused label refunded, an order taken by another operator). */
  invalidateOnError?: boolean;
  /** The success toast, when the screen has one; `serverMessage` shows the answer's own. */
  successToast?: (data: Data, vars: Vars) => ReactNode;
  /** The kind of that toast when the answer is not all good news (some of what was asked refused): a warning or an error. */
  successKind?: (data: Data, vars: Vars) => 'success' | 'warn' | 'error';
  /** The error toast: the server's message, unless this says more (or, returning null, nothing). */
  errorToast?: (error: unknown, vars: Vars) => ReactNode | Promise<ReactNode>;
  /** The warning toast for a call asked for while one is on its way (which is refused either way). */
  alreadySent?: string;
};

/** The answer's own message, as most writes' success toast. */
export const serverMessage = (data: { message: string }) => data.message;

/** The one error toast of a call the server refused, or that did not reach it. */
export const toastError = (error: unknown) => toast.error(errorMessage(error));

/**
 * A write to the server, as every screen makes one: one call at a time (a second, e.g. a double
 * click, is refused before React has rendered the first as busy), the cache refreshed, and the
 * toasts shown here, never by the screen. `mutate` never rejects; its callbacks are for what only
 * the screen knows (close the modal, mark a field). `isPending` is the busy state.
 */
export function useApiMutation<Vars = void, Data = unknown>(options: ApiMutationOptions<Vars, Data>) {
  const queryClient = useQueryClient();
  const running = useRef(false);
  const refresh = () => Promise.all((options.invalidates ?? []).map((queryKey) => queryClient.invalidateQueries({ queryKey })));
  const mutation = useMutation<Data, unknown, Vars>({
    mutationFn: options.call,
    onSuccess: async (data, vars) => {
      await options.onSuccess?.(data, vars);
      await refresh();
      if (options.successToast) toast[options.successKind?.(data, vars) ?? 'success'](options.successToast(data, vars));
    },
    onError: async (error, vars) => {
      if (options.invalidateOnError) await refresh();
      const content = options.errorToast ? await options.errorToast(error, vars) : errorMessage(error);
      if (content !== null) toast.error(content);
    },
  });

  const mutate = (vars: Vars, callbacks: MutateOptions<Data, unknown, Vars> = {}) => {
    if (running.current) {
      if (options.alreadySent) toast.warn(options.alreadySent);
      return;
    }
    running.current = true;
    const done = () => {
      running.current = false;
    };
    // The toasts have told the user of a failure; the screen hears of it through callbacks.onError.
    mutation.mutateAsync(vars, callbacks).then(done, done);
  };
  return { mutate, isPending: mutation.isPending, isSuccess: mutation.isSuccess };
}

/**
 * A file fetched with the token and handed to the browser. Several may be on their way; `saving`
 * is the one asked for last while it is (its button is the busy one). A failure is an error toast.
 */
export function useDownload<Item>(save: (item: Item) => Promise<void>) {
  const mutation = useMutation<void, unknown, Item>({ mutationFn: save, onError: toastError });
  return { download: (item: Item) => mutation.mutate(item), saving: mutation.isPending ? mutation.variables : undefined };
}
