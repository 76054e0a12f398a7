import { useEffect } from 'react';
import { useBlocker } from 'react-router-dom';
import { ConfirmModal } from './confirm-modal.tsx';

/** Navigation state that says the form was just sent: leaving then loses nothing. */
export const FORM_SENT = { formSent: true };

/**
 * A long form's guard: while it holds unsent input, leaving it for another screen asks first, and closing or
 * reloading the tab gets the browser's own question. Answers the question's modal, to render with the form.
 */
export function useUnsavedInputPrompt(unsaved: boolean) {
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      unsaved && currentLocation.pathname !== nextLocation.pathname && !(nextLocation.state as typeof FORM_SENT | null)?.formSent,
  );
  useEffect(() => {
    if (!unsaved) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [unsaved]);
  const blocked = blocker.state === 'blocked';
  return (
    <ConfirmModal
      confirmation={
        blocked
          ? {
              title: 'Leave this page?',
              body: 'What you entered on this form has not been sent and will be lost.',
              confirmLabel: 'Leave',
              cancelLabel: 'Stay',
              variant: 'danger',
              run: () => blocker.proceed?.(),
            }
          : null
      }
      busy={false}
      onClose={() => blocker.reset?.()}
    />
  );
}
