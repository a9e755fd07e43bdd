/**
 * The hosts files may be downloaded from. An entry is an exact host (`files.example.com`) or a
 * suffix pattern (`*.example.com`, which matches subdomains but not `example.com` itself).
 * An empty list allows no host: downloads are off until hosts are named.
 */
export function isHostAllowed(host: string, allowList: readonly string[]): boolean {
  const name = normalise(host);
  return allowList.some((entry) => {
    const pattern = normalise(entry);
    if (pattern.startsWith('*.')) return name.endsWith(pattern.slice(1));
    return name === pattern;
  });
}

/** Case and a trailing root dot do not make a different host; IPv6 literals lose their brackets. */
export function normalise(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
}
