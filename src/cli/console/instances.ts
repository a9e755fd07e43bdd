/**
 * The bridge's instances, found as CONSOLE_INSTANCES says (base URLs, or every address a name
 * resolves to: a headless Service lists each pod), and each one's /status, asked with a short
 * deadline and read within a size bound; an instance that does not answer, or answers something
 * else, is named with why, never taken for one that is idle.
 */
import { lookup } from 'node:dns/promises';
import { type ClientRequest, get as httpGet } from 'node:http';
import { readCapped, TooLarge } from '../../files/capped-body.js';
import { InstanceStatus } from '../../observability/status.js';

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

/**
 * GET <url>/status over node:http (not fetch, which would load a second HTTP client into the
 * console's memory for one small question).
 */
export function askStatus(url: string): Promise<InstanceAnswer> {
  return new Promise((resolve) => {
    const settle = (answer: Omit<InstanceAnswer, 'url'>) => resolve({ url, ...answer });
    let request: ClientRequest;
    try {
      request = httpGet(`${url}/status`, { timeout: STATUS_TIMEOUT_MS }, (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          settle({ problem: `/status answered ${response.statusCode}` });
          return;
        }
        readCapped(response, STATUS_MAX_BYTES, response.headers['content-length'])
          .then((body) => settle(statusOf(Buffer.from(body).toString('utf8'))))
          .catch((error: unknown) =>
            settle({
              problem:
                error instanceof TooLarge
                  ? `/status is larger than ${STATUS_MAX_BYTES} bytes`
                  : (error as Error).message,
            }),
          );
      });
    } catch (error) {
      settle({ problem: (error as Error).message });
      return;
    }
    request.on('timeout', () => request.destroy(new Error(`no answer in ${STATUS_TIMEOUT_MS} ms`)));
    request.on('error', (error) => settle({ problem: error.message }));
  });
}

function statusOf(text: string): Omit<InstanceAnswer, 'url'> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: '/status is not JSON' };
  }
  const parsed = InstanceStatus.safeParse(json);
  return parsed.success
    ? { status: parsed.data }
    : { problem: 'answered /status with something that is not a status' };
}
