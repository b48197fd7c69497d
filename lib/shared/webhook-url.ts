import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { env } from './env';

/**
 * Where webhooks may be delivered. A delivery URL is an address the server calls on an owner's
 * behalf, so it must not become a way into the server's own network: an address that is private,
 * loopback, link-local or otherwise not public is refused unless BULLPEN_WEBHOOK_ALLOW names it
 * (a host, an IP or a CIDR; `*` for all), or the server runs in development. The host is
 * resolved and every address it resolves to is checked, at registration and again at delivery.
 */

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE.addSubnet(net, bits, 'ipv4');
// IPv4-mapped IPv6 (::ffff:a.b.c.d) is checked as the IPv4 address it maps (see mapped())
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6');
}

export type WebhookUrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

type Allow = { all: boolean; hosts: Set<string>; nets: BlockList };

function allowList(source: Record<string, string | undefined>): Allow {
  const raw = (env('BULLPEN_WEBHOOK_ALLOW', source) ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const nets = new BlockList();
  const hosts = new Set<string>();
  let all = (source === process.env ? process.env.NODE_ENV : source.NODE_ENV) === 'development';
  for (const entry of raw) {
    if (entry === '*') all = true;
    const [ip, bits] = entry.split('/');
    const family = isIP(ip);
    if (family && bits !== undefined) nets.addSubnet(ip, Number(bits), family === 4 ? 'ipv4' : 'ipv6');
    else if (family) nets.addAddress(ip, family === 4 ? 'ipv4' : 'ipv6');
    else hosts.add(entry);
  }
  return { all, hosts, nets };
}

const fam = (ip: string) => (isIP(ip) === 6 ? 'ipv6' : 'ipv4');

/** The IPv4 address an IPv4-mapped IPv6 address stands for (::ffff:7f00:1 → 127.0.0.1), else the address. */
function mapped(ip: string): string {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (dotted) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (!hex) return ip;
  const [a, b] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
  return `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
}

/** Checks one delivery URL against the allowlist (resolving its host). Never throws. */
export async function checkWebhookUrl(raw: string, source: Record<string, string | undefined> = process.env): Promise<WebhookUrlCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: `${url.protocol} is not http(s)` };
  if (url.username || url.password) return { ok: false, reason: 'credentials in the URL; put a token in the path instead' };
  const allow = allowList(source);
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (allow.all || allow.hosts.has(host)) return { ok: true, url };
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return { ok: false, reason: `${host} does not resolve` };
  }
  for (const raw of addresses) {
    const ip = mapped(raw);
    if (PRIVATE.check(ip, fam(ip)) && !allow.nets.check(ip, fam(ip))) {
      return { ok: false, reason: `${host} is a private, loopback or link-local address (${ip}); BULLPEN_WEBHOOK_ALLOW may name it` };
    }
  }
  return { ok: true, url };
}
