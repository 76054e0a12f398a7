/// <reference types="vite/client" />
interface ImportMetaEnv {
  /** The API host for pages not served from localhost; empty means the page's own origin. */
  readonly VITE_API_HOST?: string;
}
