import { getToken, removeToken } from './session.ts';
import { keepExpiredPage } from './session-expiry.ts';

/**
 * The spec's local API on port 7400 is for the development server (npm run dev, a page on localhost);
 * the built app, served by the server on any port, calls its own origin, or VITE_API_HOST when built for another host.
 */
export const API_BASE = import.meta.env.DEV && window.location.href.includes('localhost') ? 'http://localhost:7400' : (import.meta.env.VITE_API_HOST ?? '');

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

type RequestOptions = {
  method?: string;
  body?: unknown;
  auth?: boolean;
  /**
   * A 401 ends the session and starts again at the root. The access check at the root only learns
   * 'logged out' from it (the sign-in page shows there); on any other path it goes to the root too.
   */
  redirectOn401?: boolean;
  /** The API the path is under: the portal's own, or another such as the reseller API's. */
  prefix?: string;
  /** More request headers (an Idempotency-Key). */
  headers?: Record<string, string>;
};

// The app has started: an early-calls script that runs after it leaves the calls to it (early-calls.ts).
// See ARCHITECTURE.md#early-calls.
window.portalEarlyCalls ??= new Map();

function takeEarlyCall(path: string): Promise<Response> | undefined {
  const call = window.portalEarlyCalls?.get(path);
  window.portalEarlyCalls?.delete(path);
  return call;
}

async function send(
  path: string,
  { method = 'GET', body, auth = true, redirectOn401 = true, prefix = '/api/v1', headers: extra = {} }: RequestOptions,
): Promise<Response> {
  const headers: Record<string, string> = { ...extra };
  const token = getToken();
  if (auth && token) headers.authorization = `Bearer ${token}`;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  // A first load's access check and first screen's data were asked for by early-calls.ts; its answer is taken once.
  const early = method === 'GET' && token && prefix === '/api/v1' ? takeEarlyCall(path) : undefined;
  const response = await (early ?? fetch(`${API_BASE}${prefix}${path}`, { method, headers, body: payload }));
  if (response.status === 401 && auth && token) {
    // A 401 ends the session: drop the token and start again at the root. The page is leaving,
    // so the call never settles: no error toast or logged-out screen flashes on the old path.
    removeToken();
    if (redirectOn401 || window.location.pathname !== '/') {
      keepExpiredPage();
      window.location.assign('/');
      return new Promise<never>(() => undefined);
    }
  }
  if (!response.ok) {
    const data = await response.json().catch(() => ({}));
    throw new ApiError(response.status, (data as { message?: string }).message ?? `Request failed (${response.status})`, data);
  }
  return response;
}

export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return (await send(path, options)).json() as Promise<T>;
}

/** A binary answer and its headers. */
export async function fetchFile(path: string, options: RequestOptions = {}): Promise<{ blob: Blob; headers: Headers }> {
  const response = await send(path, options);
  return { blob: await response.blob(), headers: response.headers };
}

/** Hands a file to the browser to save under the given name. */
export function saveFile(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The file name a Content-Disposition gives, if any. */
export const attachmentName = (headers: Headers) => /filename="([^"]+)"/.exec(headers.get('content-disposition') ?? '')?.[1];

/**
 * A binary answer saved under the name the server gives it (labels come as .pdf or .zpl, in the format chosen in
 * Account Setting), else under `fileName`.
 */
export async function download(path: string, fileName: string, options: RequestOptions = {}): Promise<void> {
  const { blob, headers } = await fetchFile(path, options);
  saveFile(blob, attachmentName(headers) ?? fileName);
}

export const errorMessage = (error: unknown) => (error instanceof Error ? error.message : 'Something went wrong');
