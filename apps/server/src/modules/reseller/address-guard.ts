import dns from 'node:dns/promises';
import net from 'node:net';
import { WEBHOOK_URL_INVALID, WEBHOOK_URL_PRIVATE, WEBHOOK_URL_UNRESOLVED } from '@portal/contract';
import { badRequest } from '../../lib/http-errors.ts';

/** Addresses a webhook must not reach: this machine, private and shared networks, link-local, documentation, multicast and reserved ranges. */
const blocked = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24],
  ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(network, prefix, 'ipv4');
// IPv6, with every form that can carry an IPv4 address (mapped, NAT64, 6to4, Teredo) blocked whole.
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['::ffff:0:0', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 32], ['2001:db8::', 32],
  ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) blocked.addSubnet(network, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
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
