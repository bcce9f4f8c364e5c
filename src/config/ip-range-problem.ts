import { isIP } from 'node:net';

/** Why a `server.trustedProxies` entry cannot be used, or undefined when it is an IP address or a CIDR range. */
export function ipRangeProblem(value: string): string | undefined {
  const [address = '', bits, ...rest] = value.split('/');
  const family = isIP(address);
  const example = 'write an address or a CIDR range, e.g. "10.0.0.7", "10.0.0.0/8" or "fd00::/8"';
  if (family === 0 || rest.length > 0) return `"${value}" is not an IP address or a CIDR range: ${example}`;
  if (bits === undefined) return undefined;
  const prefix = Number(bits);
  const max = family === 6 ? 128 : 32;
  if (bits === '' || !Number.isInteger(prefix) || prefix < 0 || prefix > max)
    return `"${value}": the range's prefix length must be 0 to ${max}; ${example}`;
  return undefined;
}
