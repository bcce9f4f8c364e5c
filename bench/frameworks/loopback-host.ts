// Which hosts count as this machine: the children connect to no other
// (loopback-only.ts), so compare.ts checks a service's host against the same rule.

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/;

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host);
}
