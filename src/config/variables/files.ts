import { DEFAULTS as CLIENT_DEFAULTS } from '../../api-client/settings.js';
import { flag, hostPatterns, integer } from '../parsers.js';
import type { Variable } from '../variable.js';

export const FILES = [
  {
    name: 'FILE_MAX_BYTES',
    group: 'Files',
    schema: integer({ min: 1 }),
    default: String(CLIENT_DEFAULTS.maxFileBytes),
    description: 'Largest document file, inline or downloaded, in bytes.',
  },
  {
    name: 'FILE_URL_ALLOWED_HOSTS',
    group: 'Files',
    schema: hostPatterns,
    default: '',
    description:
      'Hosts document files may be downloaded from, comma-separated: exact (files.example.com) or *.suffix (subdomains), each with :port to allow only that port (files.example.com:8443, [2001:db8::1]:8443), else any port. Empty: no downloads.',
  },
  {
    name: 'FILE_URL_ALLOW_PRIVATE',
    group: 'Files',
    schema: flag,
    default: 'false',
    description:
      'Allow downloads from loopback, private, link-local, unique-local and site-local addresses (v4 and v6), and from the ranges that embed an IPv4 address (NAT64 64:ff9b::/96, IPv4-compatible ::/96, 6to4 2002::/16). Off, a host resolving to any such address is refused.',
  },
] as const satisfies readonly Variable[];
