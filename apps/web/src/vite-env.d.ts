/// <reference types="vite/client" />
interface ImportMetaEnv {
  /** The API host for pages not served from localhost; empty means the page's own origin. */
  readonly VITE_API_HOST?: string;
}

interface Window {
  /** The answers early-calls.ts asked for before the app's code came, by API path (client.ts takes each once). */
  portalEarlyCalls?: Map<string, Promise<Response>>;
}
