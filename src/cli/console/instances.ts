/**
 * The bridge's instances, found as CONSOLE_INSTANCES says (base URLs, or every address a name
 * resolves to: a headless Service lists each pod), and each one's /status, asked with a short
 * deadline and read within a size bound; an instance that does not answer, or answers something
 * else, is named with why, never taken for one that is idle.
 */
import { lookup } from 'node:dns/promises';
import { Readable } from 'node:stream';
import { readCapped, TooLarge } from '../../files/capped-body.js';
import { InstanceStatus } from '../../observability/index.js';

const STATUS_TIMEOUT_MS = 1_500;
const STATUS_MAX_BYTES = 1_048_576;

export interface InstanceAnswer {
  readonly url: string;
  readonly status?: InstanceStatus;
  readonly problem?: string;
}

type Resolve = (name: string) => Promise<string[]>;

const resolveAll: Resolve = async (name) =>
  (await lookup(name, { all: true })).map(({ address, family }) =>
    family === 6 ? `[${address}]` : address,
  );

/** Base URLs of the instances, now: `dns:` entries resolved again each time. */
export async function instanceUrls(
  entries: readonly string[],
  resolve: Resolve = resolveAll,
): Promise<{ urls: string[]; problems: InstanceAnswer[] }> {
  const urls: string[] = [];
  const problems: InstanceAnswer[] = [];
  for (const entry of entries) {
    const dns = /^dns:(.+):(\d+)$/.exec(entry);
    if (!dns) {
      urls.push(entry.replace(/\/+$/, ''));
      continue;
    }
    try {
      for (const address of await resolve(dns[1] as string))
        urls.push(`http://${address}:${dns[2]}`);
    } catch (error) {
      problems.push({
        url: entry,
        problem: `${dns[1]} does not resolve (${(error as Error).message})`,
      });
    }
  }
  return { urls: [...new Set(urls)], problems };
}

export async function askStatus(url: string): Promise<InstanceAnswer> {
  try {
    const response = await fetch(`${url}/status`, {
      signal: AbortSignal.timeout(STATUS_TIMEOUT_MS),
      redirect: 'error',
    });
    if (response.status !== 200) return { url, problem: `/status answered ${response.status}` };
    const text = await boundedText(response);
    const parsed = InstanceStatus.safeParse(JSON.parse(text));
    return parsed.success
      ? { url, status: parsed.data }
      : { url, problem: 'answered /status with something that is not a status' };
  } catch (error) {
    if (error instanceof TooLarge)
      return { url, problem: `/status is larger than ${STATUS_MAX_BYTES} bytes` };
    const { name, message } = error as Error;
    if (name === 'TimeoutError') return { url, problem: `no answer in ${STATUS_TIMEOUT_MS} ms` };
    return { url, problem: name === 'SyntaxError' ? '/status is not JSON' : message };
  }
}

async function boundedText(response: Response): Promise<string> {
  if (!response.body) return '';
  const body = Readable.fromWeb(response.body as never);
  const bytes = await readCapped(
    body,
    STATUS_MAX_BYTES,
    response.headers.get('content-length') ?? undefined,
  );
  return Buffer.from(bytes).toString('utf8');
}
