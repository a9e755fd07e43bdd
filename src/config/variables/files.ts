import { CLIENT_DEFAULTS } from '../../api-client/index.js';
import { flag, hostPatterns, integer, milliseconds } from '../parsers.js';
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
      'Hosts document files may be downloaded from, comma-separated: exact (files.example.com) or *.suffix (subdomains). Empty: no downloads.',
  },
  {
    name: 'FILE_URL_ALLOW_PRIVATE',
    group: 'Files',
    schema: flag,
    default: 'false',
    description:
      'Allow downloads from loopback, private, link-local and unique-local addresses (v4 and v6). Off, a host resolving to any such address is refused.',
  },
  {
    name: 'FILE_URL_TIMEOUT_MS',
    group: 'Files',
    schema: milliseconds(1),
    default: '30000',
    description: 'Deadline of one download, redirects included. Past it the command is retried.',
  },
  {
    name: 'FILE_URL_MAX_REDIRECTS',
    group: 'Files',
    schema: integer({ min: 0, max: 10 }),
    default: '3',
    description: 'Redirects followed, each to a URL that passes the same checks; 0 = none.',
  },
] as const satisfies readonly Variable[];
