/**
 * Variables that name a file (a CA bundle, a key, a mounted Secret holding a password): the file
 * is read when the configuration is, so an unreadable one stops start-up with the rest. Messages
 * never repeat the path or the content.
 */
import { readFileSync, statSync } from 'node:fs';
import { inspect } from 'node:util';
import { z } from 'zod';
import type { TextSchema } from './parsers.js';

/** The largest file a variable may name: PEM bundles and passwords are far smaller. */
export const CONFIG_FILE_MAX_BYTES = 1_048_576;

/** A file's path and text. Serialised or inspected, it shows the path only. */
export class FileText {
  constructor(
    readonly path: string,
    readonly text: string,
  ) {}

  toJSON(): string {
    return this.path;
  }

  [inspect.custom](): string {
    return `FileText(${this.path})`;
  }
}

/** The file's text, or why it cannot be read. */
function readText(path: string): { text: string } | { problem: string } {
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return { problem: 'must name a regular file' };
    if (stat.size > CONFIG_FILE_MAX_BYTES)
      return { problem: `must name a file of at most ${CONFIG_FILE_MAX_BYTES} bytes` };
    return { text: readFileSync(path, 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { problem: 'must name an existing file' };
    if (code === 'EACCES' || code === 'EPERM')
      return { problem: 'must name a file this process may read' };
    return { problem: `must name a readable file (${code ?? 'unreadable'})` };
  }
}

function fileWith(toText: (raw: string) => string): TextSchema<FileText> {
  return z
    .string()
    .trim()
    .transform((path, context) => {
      const read = readText(path);
      if ('problem' in read) {
        context.addIssue({ code: 'custom', message: read.problem });
        return z.NEVER;
      }
      const text = toText(read.text);
      if (text === '') {
        context.addIssue({ code: 'custom', message: 'must name a file that is not empty' });
        return z.NEVER;
      }
      return new FileText(path, text);
    });
}

/** A file read as it is (PEM certificates and keys). */
export const textFile: TextSchema<FileText> = fileWith((text) => text);

/** A file holding one secret, such as a password; one final line break is not part of it. */
export const secretFile: TextSchema<FileText> = fileWith((text) => text.replace(/\r?\n$/, ''));

/** A secret given inline: taken exactly as set, spaces included. */
export const secretText: TextSchema<string> = z.string().min(1, 'must not be empty');

/** Empty (the default) reads as "not set"; anything else must satisfy `schema`. */
export function optional<T>(schema: TextSchema<T>): TextSchema<T | undefined> {
  return z
    .string()
    .transform((value) => (value.trim() === '' ? undefined : value))
    .pipe(schema.optional());
}
