/**
 * What a base URL's host is: this machine (a local server needs no key), or this machine or a
 * private network (a local server's own routes are worth asking at once). Both read the host the
 * same way: lower case, IPv6 brackets and a trailing dot dropped, and an IPv4 address written as
 * IPv6 (`::ffff:7f00:1`, as URL writes it) judged as IPv4.
 */

/** The host of `url` as the two questions below read it; null when it is not a URL. */
function hostOf(url: string): string | null {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  } catch {
    return null;
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  return mapped ? [mapped[1]!, mapped[2]!].flatMap(word => [parseInt(word, 16) >> 8, parseInt(word, 16) & 255]).join('.') : host;
}

function octetsOf(host: string): [number, number] | null {
  const octets = host.split('.').map(Number);
  return octets.length === 4 && octets.every(part => Number.isInteger(part) && part >= 0 && part <= 255) ? [octets[0]!, octets[1]!] : null;
}

/** This machine: `localhost`, 127/8, `::1`, and 0.0.0.0 / `::` (what vLLM and llama.cpp print as their address). */
export function isLoopback(baseURL: string): boolean {
  const host = hostOf(baseURL);
  return host !== null && isLoopbackHost(host);
}

function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost') || host === '::1' || host === '::') return true;
  const octets = octetsOf(host);
  return octets !== null && (octets[0] === 127 || host === '0.0.0.0');
}

/**
 * This machine or a private network: loopback, the private and link-local ranges (and CGNAT,
 * which Tailscale uses), `.local` and `.internal` names, and names without a dot (a container's
 * service name).
 */
export function onLocalNetwork(baseURL: string): boolean {
  const host = hostOf(baseURL);
  if (host === null) return false;
  if (isLoopbackHost(host) || host.endsWith('.local') || host.endsWith('.internal')) return true;
  // IPv6: unique-local and link-local.
  if (host.includes(':')) return /^f[cd]/.test(host) || /^fe[89ab]/.test(host);
  const octets = octetsOf(host);
  if (octets === null) return !host.includes('.');
  const [a, b] = octets;
  return a === 10 || a === 0 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
}
