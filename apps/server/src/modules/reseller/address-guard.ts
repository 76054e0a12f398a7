import dns from 'node:dns/promises';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { WEBHOOK_URL_INVALID, WEBHOOK_URL_PRIVATE, WEBHOOK_URL_UNRESOLVED } from '@portal/contract';
import { badRequest } from '../../lib/http-errors.ts';

/**
 * Whether a webhook must not reach this address. Only ipaddr.js's 'unicast' passes: an address in
 * none of the IANA special-purpose ranges it names (this machine, private and shared networks,
 * link-local, documentation, multicast, reserved, NAT64, 6to4, Teredo...), so a range it learns
 * later is refused too. An IPv4-mapped address (::ffff:a.b.c.d) is judged as the IPv4 address it
 * connects to; the deprecated IPv4-compatible ::/96, which ipaddr.js calls unicast, is refused whole
 * (by Node's parser: ipaddr.js reads ::a.b.c.d as ::ffff:a.b.c.d).
 */
const ipv4Compatible = new net.BlockList();
ipv4Compatible.addSubnet('::', 96, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  if (family === 6 && ipv4Compatible.check(address, 'ipv6')) return true;
  return ipaddr.process(address).range() !== 'unicast';
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const isLocalHost = (hostname: string) => LOCAL_HOSTS.has(hostname) || hostname.endsWith('.localhost');

export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;
export const systemLookup: Lookup = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** The URL's host as an address to connect to: an IP literal, or what DNS answers. */
const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Every address the URL's host has, each checked: a 400 when one is private (unless allowed) or
 * none resolves. Used at save time and again for each delivery, on the address then connected to.
 */
export async function publicAddressesOf(url: URL, allowPrivate: boolean, lookup: Lookup = systemLookup): Promise<{ address: string; family: number }[]> {
  const host = bareHost(url);
  let addresses: { address: string; family: number }[];
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await lookup(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) throw badRequest(WEBHOOK_URL_UNRESOLVED);
  }
  if (!allowPrivate && addresses.some((a) => isPrivateAddress(a.address))) throw badRequest(WEBHOOK_URL_PRIVATE);
  return addresses;
}

/** A webhook URL as saved: https, or http to localhost; no user name or password in it. 400 otherwise. */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest(WEBHOOK_URL_INVALID);
  }
  const secure = url.protocol === 'https:';
  const local = url.protocol === 'http:' && isLocalHost(url.hostname);
  if ((!secure && !local) || url.username || url.password) throw badRequest(WEBHOOK_URL_INVALID);
  url.hash = '';
  return url;
}
