/**
 * The bytes of a document's file. Files arrive inline (base64, small, bounded by the command
 * schema) or by URL, downloaded under the policy: allow-listed hosts, public addresses unless
 * private ones are allowed, a size limit and a timeout.
 */
import { Agent } from 'undici';
import { FileRejected } from '../errors.js';
import type { FileContent } from '../schemas/messages/commands.js';
import { type DownloadPolicy, download } from './download.js';
import { guardedLookup } from './guarded-lookup.js';

export type FilePolicy = DownloadPolicy;

export interface FileLoader {
  /** Rejects with FileRejected (policy) or FileFetchFailed (download), or the signal's reason. */
  load(file: FileContent, signal?: AbortSignal): Promise<Uint8Array>;
  close(): Promise<void>;
}

export function createFileLoader(policy: FilePolicy): FileLoader {
  // One agent for every download; its lookup is where resolved addresses are checked.
  const agent = new Agent({
    connect: {
      timeout: policy.timeoutMs,
      ...(policy.allowPrivate ? {} : { lookup: guardedLookup }),
    },
  });
  return {
    load: async (file, signal) =>
      'base64' in file
        ? decodeInline(file.base64, policy.maxBytes)
        : download(new URL(file.url), policy, agent, signal),
    close: () => agent.close(),
  };
}

function decodeInline(base64: string, maxBytes: number): Uint8Array {
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.byteLength <= maxBytes) return bytes;
  throw new FileRejected(`inline file larger than FILE_MAX_BYTES (${maxBytes} bytes)`, {
    details: { operation: 'decodeInlineFile', reason: 'size', limitBytes: maxBytes },
  });
}
