/**
 * What the bridge says about itself on /metrics (Prometheus text), read at the start and at the
 * end of a measurement: where a command's time goes (its whole duration against its platform
 * calls'), how many ran at once (Little's law), the event loop's delay and the heap. These
 * explain a missed target; they are not targets themselves.
 */
import { createServer } from 'node:net';
import { request } from 'undici';
import { round } from './stats.js';

const PREFIX = 'signing_bridge_';

/** A port free now, for the bridge's HTTP_PORT. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Every sample of the text format, labels dropped, values of one name summed. */
export async function scrape(port: number): Promise<Map<string, number>> {
  const { body } = await request(`http://127.0.0.1:${port}/metrics`);
  const values = new Map<string, number>();
  for (const line of (await body.text()).split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{[^}]*\})? (\S+)$/.exec(line);
    if (!match?.[1] || !match[2]) continue;
    const name = match[1].replace(PREFIX, '');
    values.set(name, (values.get(name) ?? 0) + Number(match[2]));
  }
  return values;
}

export interface BridgeInsight {
  readonly commandMeanMs: number;
  readonly platformCallMeanMs: number;
  readonly platformCallsPerCommand: number;
  /** Commands running at once on average: throughput times mean duration. */
  readonly meanConcurrency: number;
  /** Event loop delay over the window (the histogram restarts at every scrape). */
  readonly eventLoopDelayMs: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly heapMb: HeapMb;
}

/** From the scrape at the start of the window and the one at its end. */
export function insight(
  start: Map<string, number>,
  end: Map<string, number>,
  commandsPerSecond: number,
): BridgeInsight {
  const delta = (name: string) => (end.get(name) ?? 0) - (start.get(name) ?? 0);
  const mean = (histogram: string) =>
    (delta(`${histogram}_sum`) * 1000) / Math.max(1, delta(`${histogram}_count`));
  const commandMeanMs = mean('command_duration_seconds');
  const ms = (name: string) => round((end.get(name) ?? 0) * 1000, 1);
  return {
    commandMeanMs: round(commandMeanMs, 1),
    platformCallMeanMs: round(mean('platform_call_duration_seconds'), 1),
    platformCallsPerCommand: round(
      delta('platform_call_duration_seconds_count') /
        Math.max(1, delta('command_duration_seconds_count')),
    ),
    meanConcurrency: round((commandsPerSecond * commandMeanMs) / 1000, 0),
    eventLoopDelayMs: {
      p50: ms('nodejs_eventloop_lag_p50_seconds'),
      p99: ms('nodejs_eventloop_lag_p99_seconds'),
      max: ms('nodejs_eventloop_lag_max_seconds'),
    },
    heapMb: heapMb(end),
  };
}

export interface HeapMb {
  readonly used: number;
  readonly total: number;
  readonly external: number;
}

export function heapMb(values: Map<string, number>): HeapMb {
  const mb = (name: string) => round((values.get(name) ?? 0) / 2 ** 20, 1);
  return {
    used: mb('nodejs_heap_size_used_bytes'),
    total: mb('nodejs_heap_size_total_bytes'),
    external: mb('nodejs_external_memory_bytes'),
  };
}
