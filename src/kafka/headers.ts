import type { RecordHeaders } from './types.js';

/** A header's first value as text (kafkajs gives a repeated header as an array). */
export function headerText(headers: Readonly<RecordHeaders>, name: string): string | undefined {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}
