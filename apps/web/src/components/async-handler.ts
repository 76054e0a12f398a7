import { errorMessage } from '../api/client.ts';
import { toast } from './toast.tsx';

/**
 * An event handler (onClick, onSubmit) that runs async work. React ignores what a handler returns,
 * so an error the work does not show itself would be lost as an unhandled rejection: it is shown
 * in an error toast instead.
 */
export const asyncHandler =
  <Args extends unknown[]>(work: (...args: Args) => Promise<unknown>) =>
  (...args: Args): void => {
    work(...args).catch((error: unknown) => toast.error(errorMessage(error)));
  };
