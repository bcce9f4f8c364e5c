import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { ToolgateError } from '../core/errors.ts';

/**
 * `server.trustedProxies` as a BlockList: addresses ("10.0.0.7", "::1") and
 * CIDR ranges ("10.0.0.0/8", "fd00::/8"). Refuses anything else, naming it.
 */
export function trustedProxyList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits, ...rest] = entry.trim().split('/');
    const family = isIP(address);
    const prefix = bits === undefined ? undefined : Number(bits);
    const maxBits = family === 6 ? 128 : 32;
    if (
      family === 0 ||
      rest.length > 0 ||
      (prefix !== undefined && (!Number.isInteger(prefix) || prefix < 0 || prefix > maxBits || bits === ''))
    ) {
      throw new ToolgateError(
        'config_invalid',
        `server.trustedProxies: "${entry}" is not an IP address or a ` +
          `CIDR range; write e.g. "10.0.0.7", "10.0.0.0/8" or "fd00::/8"`,
      );
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  }
  return list;
}

/**
 * Who sent the request, for counting failed authentications: the socket's
 * peer, or — when that peer is a trusted proxy — the last address in
 * X-Forwarded-For that is not one (proxies append, so what is left of the
 * first untrusted hop may be forged). Never the header without a trusted peer.
 * IPv6 clients are grouped by /64, the block one subscriber usually gets.
 */
export function clientAddress(req: IncomingMessage, trusted: BlockList | undefined): string {
  let address = plain(req.socket.remoteAddress ?? '');
  if (trusted !== undefined && isTrusted(trusted, address)) {
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((hop) => plain(hop.trim()))
      .filter((hop) => isIP(hop) !== 0);
    for (let i = hops.length - 1; i >= 0; i--) {
      address = hops[i] ?? address;
      if (!isTrusted(trusted, address)) break;
    }
  }
  return isIP(address) === 6 ? ipv6Block(address) : address === '' ? 'unknown' : address;
}

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** IPv4 as IPv4 even when the socket reports it mapped into IPv6 ("::ffff:10.0.0.1"). */
function plain(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

/** The /64 an IPv6 address lies in, e.g. "2001:db8:1:2::/64". */
function ipv6Block(address: string): string {
  const [head = '', tail] = address.split('%')[0]?.split('::') ?? [''];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}
