// The bridge's health server as a probe or a scraper sees it: /readyz, /metrics.
import { waitUntil } from './wait.js';

/**
 * Waits until `path` on the health server at `port` answers `status` with a body `until`
 * accepts (up to a minute); returns that body.
 */
export async function healthAnswer(
  port: number,
  path: '/readyz' | '/metrics',
  status: number,
  until: (body: string) => boolean = () => true,
): Promise<string> {
  const answer = await waitUntil(
    async () => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`);
      return { status: response.status, body: await response.text() };
    },
    {
      what: `${path} answering ${status}`,
      until: (a) => a.status === status && until(a.body),
      timeoutMs: 60_000,
      intervalMs: 200,
    },
  );
  return answer.body;
}
