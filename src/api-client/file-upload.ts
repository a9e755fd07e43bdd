/**
 * The file of add-by-file, checked before upload: a suffix from the spec's list and a size
 * within `maxFileBytes`. The file becomes a Blob so a retried attempt can send it again; a path
 * stays on disk (read as the request streams), a Readable is read once, bounded by the limit.
 */
import { openAsBlob } from 'node:fs';
import { basename, extname } from 'node:path';
import { Readable } from 'node:stream';
import { FormData } from 'undici';
import { type CallContext, FileRejected } from '../errors.js';
import { FileSuffix } from '../schemas/platform/primitives.js';

export type FileSource = Uint8Array | Readable | { readonly path: string };

export interface FilePart {
  readonly blob: Blob;
  readonly suffix: FileSuffix;
  readonly filename: string;
}

interface Limits {
  readonly maxBytes: number;
  readonly context: CallContext;
}

/** Reads (or opens) the file once its suffix is known to be allowed. */
export async function readFileSource(
  source: FileSource,
  suffix: FileSuffix,
  limits: Limits,
): Promise<FilePart> {
  const blob = await toBlob(source, limits);
  const filename = isPath(source) ? basename(source.path) : `document.${suffix}`;
  return { blob, suffix, filename };
}

/** The multipart body: the form fields that are set, then the file part. */
export function multipartBody(
  fields: Record<string, string | undefined>,
  part: FilePart,
): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined) form.set(name, value);
  }
  form.set('file', part.blob, part.filename);
  return form;
}

/** The given suffix, or the path's extension; refused unless it is on the spec's list. */
export function fileSuffixOf(
  source: FileSource,
  given: string | undefined,
  context: CallContext,
): FileSuffix {
  const raw = given ?? (isPath(source) ? extname(source.path).slice(1) : undefined);
  const parsed = FileSuffix.safeParse(raw?.toLowerCase());
  if (parsed.success) return parsed.data;
  const allowed = FileSuffix.options.join(', ');
  const problem =
    raw === undefined ? 'no fileSuffix given and none derivable' : `suffix "${raw}" not allowed`;
  throw new FileRejected(`${context.operation}: ${problem}; allowed: ${allowed}`, {
    details: { ...context, reason: 'suffix' },
  });
}

async function toBlob(source: FileSource, limits: Limits): Promise<Blob> {
  if (source instanceof Uint8Array) return withinLimit(new Blob([source]), limits);
  if (isPath(source)) return withinLimit(await openPath(source.path, limits.context), limits);
  return new Blob(await readBounded(source, limits));
}

async function openPath(path: string, context: CallContext): Promise<Blob> {
  try {
    return await openAsBlob(path);
  } catch (cause) {
    throw new FileRejected(`${context.operation}: cannot read the file`, {
      details: { ...context, reason: 'unreadable' },
      cause,
    });
  }
}

/** Counts while reading and stops at the limit, so an endless stream costs at most the limit. */
async function readBounded(stream: Readable, limits: Limits): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array);
      size += bytes.byteLength;
      if (size > limits.maxBytes) throw tooLarge(limits);
      chunks.push(bytes);
    }
  } catch (error) {
    stream.destroy();
    if (error instanceof FileRejected) throw error;
    throw new FileRejected(`${limits.context.operation}: the file stream failed`, {
      details: { ...limits.context, reason: 'unreadable' },
      cause: error,
    });
  }
  return chunks;
}

function withinLimit(blob: Blob, limits: Limits): Blob {
  if (blob.size > limits.maxBytes) throw tooLarge(limits);
  return blob;
}

function tooLarge({ maxBytes, context }: Limits): FileRejected {
  return new FileRejected(
    `${context.operation}: file larger than maxFileBytes (${maxBytes} bytes)`,
    {
      details: { ...context, reason: 'size', limitBytes: maxBytes },
    },
  );
}

/** A file stream has a `path` too, but it is already open: it is read as a stream. */
function isPath(source: FileSource): source is { readonly path: string } {
  return !(source instanceof Uint8Array) && !(source instanceof Readable);
}
