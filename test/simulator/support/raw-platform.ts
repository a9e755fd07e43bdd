// Raw HTTP against the simulator: requests the real client would refuse to send (bad headers,
// broken bodies, out-of-range fields) go out as they are, signed by this helper's own headers.
import { randomUUID } from 'node:crypto';
import { FormData, request } from 'undici';
import { md5Signature } from '../../../src/api-client/signature.js';
import { readJson } from '../../../src/schemas/platform/json-text.js';
import { OPERATIONS, type OperationName } from '../../../src/schemas/platform/operations.js';

export const DEMO_APP = { appToken: 'demo-app-token', appSecret: 'demo-app-secret' } as const;

export interface AuthTweaks {
  readonly appToken?: string;
  readonly appSecret?: string;
  readonly timestamp?: string;
  readonly signature?: string;
  readonly nonce?: string;
  /** Header names (without prefix) to leave out: accesstoken, timestamp, signature, nonce. */
  readonly omit?: readonly string[];
}

export interface RawAnswer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever the simulator answered.
  readonly body: any;
  /** The body as it came over the wire. */
  readonly text: string;
}

export class RawPlatform {
  constructor(
    readonly baseUrl: string,
    readonly options: { readonly nonce?: boolean; readonly prefix?: string } = {},
  ) {}

  headers(tweaks: AuthTweaks = {}): Record<string, string> {
    const appToken = tweaks.appToken ?? DEMO_APP.appToken;
    const timestamp = tweaks.timestamp ?? String(Date.now());
    const nonce = tweaks.nonce ?? (this.options.nonce ? randomUUID() : undefined);
    const signature =
      tweaks.signature ??
      md5Signature(appToken, tweaks.appSecret ?? DEMO_APP.appSecret, timestamp, nonce);
    const prefix = this.options.prefix ?? 'x-svc-open-';
    const all: Record<string, string | undefined> = {
      accesstoken: appToken,
      timestamp,
      signature,
      nonce,
    };
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(all)) {
      if (value !== undefined && !tweaks.omit?.includes(name)) headers[prefix + name] = value;
    }
    return headers;
  }

  /** A JSON body (an object, or a raw string sent as it is). */
  call(operation: OperationName, body: unknown, tweaks?: AuthTweaks): Promise<RawAnswer> {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return this.#post(OPERATIONS[operation].path, text, {
      ...this.headers(tweaks),
      'content-type': 'application/json;charset=UTF-8',
    });
  }

  /** Add-by-file as multipart: text fields plus an optional file part. */
  upload(
    fields: Record<string, string>,
    file?: Uint8Array,
    tweaks?: AuthTweaks,
  ): Promise<RawAnswer> {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    if (file) form.append('file', new Blob([file]), `upload.${fields.fileSuffix ?? 'bin'}`);
    return this.#post(OPERATIONS.addDocumentByFile.path, form, this.headers(tweaks));
  }

  async #post(
    path: string,
    body: string | FormData,
    headers: Record<string, string>,
  ): Promise<RawAnswer> {
    const response = await request(`${this.baseUrl}${path}`, { method: 'POST', headers, body });
    const text = await response.body.text();
    return { status: response.statusCode, body: parseOrKeep(text), text };
  }
}

/** JSON (ids beyond 2^53 kept whole, as strings) when it is JSON; a proxy-style text stays text. */
function parseOrKeep(text: string): unknown {
  try {
    return text ? readJson(text) : undefined;
  } catch {
    return text;
  }
}
