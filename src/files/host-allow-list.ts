/**
 * The hosts files may be downloaded from. An entry is an exact host (`files.example.com`) or a
 * suffix pattern (`*.example.com`, which matches subdomains but not `example.com` itself),
 * optionally with a port (`files.example.com:8443`, `[2001:db8::1]:8443`): without one, any
 * port of the host is allowed; with one, only that port. An empty list allows no host:
 * downloads are off until hosts are named.
 */

export interface HostEntry {
  /** Normalised host or `*.suffix`. */
  readonly host: string;
  readonly port?: number | undefined;
}

const BRACKETED = /^\[([^\]]+)\](?::(\d{1,5}))?$/;
const WITH_PORT = /^([^:]+):(\d{1,5})$/;

/**
 * `host`, `*.suffix`, either with `:port`, `[IPv6]` with or without `:port`, or a bare IPv6
 * literal (which cannot carry a port). Undefined when the port is not 1 to 65535.
 */
export function parseHostEntry(entry: string): HostEntry | undefined {
  const text = entry.trim();
  const [, host, port] = BRACKETED.exec(text) ?? WITH_PORT.exec(text) ?? [text, text];
  if (host === undefined) return undefined;
  if (port === undefined) return { host: normalise(host) };
  const number = Number(port);
  return number >= 1 && number <= 65_535 ? { host: normalise(host), port: number } : undefined;
}

export function isHostAllowed(host: string, port: number, allowList: readonly string[]): boolean {
  const name = normalise(host);
  return allowList.some((text) => {
    const entry = parseHostEntry(text);
    if (entry === undefined || (entry.port !== undefined && entry.port !== port)) return false;
    if (entry.host.startsWith('*.')) return name.endsWith(entry.host.slice(1));
    return name === entry.host;
  });
}

/** The port a URL connects to: its own, or its scheme's default. */
export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** Case and a trailing root dot do not make a different host; IPv6 literals lose their brackets. */
export function normalise(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
}
