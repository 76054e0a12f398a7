/**
 * The origin of the links the shop hands out (payment pages and their return, the reseller API's OpenAPI `servers`
 * and download links, Telegram message links). A request's Host header is the client's to choose, so it is used only
 * when it names this machine (loopback) or is listed in ALLOWED_HOSTS; PUBLIC_URL, when set, decides alone.
 */

/** host[:port]: a name or IPv4 address, or an [IPv6] one, and an optional port; nothing else (no user, path or spaces). */
const HOST_FORM = /^(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

export const isHostForm = (value: string) => HOST_FORM.test(value);

/** The name and the port ('' without one) of a host[:port] already of HOST_FORM. */
function splitHost(host: string): [name: string, port: string] {
  const at = host.lastIndexOf(':');
  return at > host.lastIndexOf(']') ? [host.slice(0, at), host.slice(at + 1)] : [host, ''];
}

const isLoopback = (name: string) => name === 'localhost' || name === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);

export type LinkOriginSettings = { PUBLIC_URL?: string; ALLOWED_HOSTS: string[]; PORT: number };

/**
 * The origin links are made with for this request: PUBLIC_URL; else the request's own origin when its host is
 * loopback or allowed (an ALLOWED_HOSTS entry without a port allows that name on any port); else
 * http://localhost:PORT, a link that works on the machine itself and never leads to a host a client chose.
 */
export function linkOrigin(settings: LinkOriginSettings, request: { protocol: string; host: string }): string {
  if (settings.PUBLIC_URL) return settings.PUBLIC_URL.replace(/\/+$/, '');
  const host = request.host.toLowerCase();
  if (isHostForm(host) && request.protocol.match(/^https?$/)) {
    const [name] = splitHost(host);
    const allowed = isLoopback(name) || settings.ALLOWED_HOSTS.some((entry) => entry === host || entry === name);
    if (allowed) return `${request.protocol}://${host}`;
  }
  return `http://localhost:${settings.PORT}`;
}

/** Whether links fall back to the request's host with no guard but loopback: said at start when the server listens beyond this machine. */
export const linksNeedSetting = (settings: LinkOriginSettings & { HOST: string }) =>
  !settings.PUBLIC_URL && settings.ALLOWED_HOSTS.length === 0 && !isLoopback(settings.HOST === '::1' ? '[::1]' : settings.HOST);
