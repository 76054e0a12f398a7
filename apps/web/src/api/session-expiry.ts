/**
 * When a session ends while a form is being filled (a 401 on a signed-in screen): where the user was and what
 * the forms there held are kept in session storage (this tab only, gone with it). The sign-in screen says the
 * session expired; after signing in the user is taken back there and the fields are filled again.
 */
const RETURN_TO = 'expired:returnTo';
const DRAFT = 'expired:draft';

type Draft = { path: string; fields: Record<string, string | boolean> };
type Field = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

const storage = () => {
  try {
    return window.sessionStorage;
  } catch {
    return null; // storage refused (privacy settings): nothing is kept
  }
};

/** Keeps the page's place and its form fields (never passwords or files). */
export function keepExpiredPage(): void {
  const path = window.location.pathname + window.location.search;
  if (window.location.pathname === '/' && !window.location.search) return;
  const fields: Draft['fields'] = {};
  for (const field of document.querySelectorAll<Field>('form [name]')) {
    if (field instanceof HTMLInputElement && ['password', 'file', 'hidden'].includes(field.type)) continue;
    fields[field.name] = field instanceof HTMLInputElement && (field.type === 'checkbox' || field.type === 'radio') ? field.checked : field.value;
  }
  storage()?.setItem(RETURN_TO, path);
  storage()?.setItem(DRAFT, JSON.stringify({ path: window.location.pathname, fields } satisfies Draft));
}

/** Whether the last session ended on a screen the user will be taken back to. */
export const sessionExpired = (): boolean => Boolean(storage()?.getItem(RETURN_TO));

/** Where to go after signing in: the kept place (once), else the root. */
export function takeReturnPath(): string {
  const path = storage()?.getItem(RETURN_TO) ?? '';
  storage()?.removeItem(RETURN_TO);
  // Only a path of this site.
  return path.startsWith('/') && !path.startsWith('//') ? path : '/';
}

/** Sets a field as typing would, so the form's own state (react-hook-form's change handlers) follows. */
function fill(field: Field, value: string | boolean): void {
  if (field instanceof HTMLInputElement && (field.type === 'checkbox' || field.type === 'radio')) {
    if (field.checked !== value) field.click();
    return;
  }
  if (field.value === value) return;
  const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(field), 'value')?.set;
  setter?.call(field, String(value));
  field.dispatchEvent(new Event('input', { bubbles: true }));
  field.dispatchEvent(new Event('change', { bubbles: true }));
}

/**
 * Fills the kept fields of this page again, as they appear (a field shown by another, like Template after the
 * type or the pickup address after its checkbox, is filled once it is there). Answers a stop function.
 */
export function restoreExpiredDraft(pathname: string): () => void {
  const raw = storage()?.getItem(DRAFT);
  if (!raw) return () => undefined;
  let draft: Draft;
  try {
    draft = JSON.parse(raw) as Draft;
  } catch {
    storage()?.removeItem(DRAFT);
    return () => undefined;
  }
  if (draft.path !== pathname) return () => undefined;
  storage()?.removeItem(DRAFT);
  const left = new Map(Object.entries(draft.fields));
  const pass = () => {
    for (const [name, value] of left) {
      const field = document.querySelector<Field>(`form [name="${CSS.escape(name)}"]`);
      if (!field) continue;
      // A choice its list does not offer yet (the label types still loading, a template before its type) waits for a later pass.
      if (field instanceof HTMLSelectElement && !Array.from(field.options).some((option) => option.value === value)) continue;
      fill(field, value);
      left.delete(name);
    }
    if (left.size === 0) stop();
  };
  // The form and the fields it shows later appear over a few renders and loads; give up after 10 s.
  const timer = window.setInterval(pass, 100);
  const deadline = window.setTimeout(() => stop(), 10_000);
  const stop = () => {
    window.clearInterval(timer);
    window.clearTimeout(deadline);
  };
  return stop;
}

const NOTICE = 'notice';

/** A confirmation to show once the page has reloaded ('Email verified'): the reload would drop a toast. */
export const keepNotice = (message: string): void => storage()?.setItem(NOTICE, message);

/** The kept confirmation, once. */
export function takeNotice(): string | null {
  const message = storage()?.getItem(NOTICE) ?? null;
  storage()?.removeItem(NOTICE);
  return message;
}
