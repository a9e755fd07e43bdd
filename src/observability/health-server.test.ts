import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { type HealthServer, startHealthServer } from './health-server.js';

let server: HealthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(
  ready: () => boolean,
  reasons: readonly string[] = ['starting'],
  status?: () => Promise<object>,
) {
  const registry = new Registry();
  server = await startHealthServer({
    host: '127.0.0.1',
    port: 0,
    notReadyBecause: () => (ready() ? [] : reasons),
    registry,
    log: pino({ level: 'silent' }),
    status,
  });
  return (path: string, method = 'GET') =>
    fetch(`http://127.0.0.1:${server?.port}${path}`, { method });
}

describe('health server', () => {
  it('when the process runs, then /healthz answers 200 whether or not the bridge is ready', async () => {
    const get = await start(() => false);
    expect((await get('/healthz')).status).toBe(200);
  });

  it('when the bridge is not ready, then /readyz answers 503 naming each reason; once ready, 200', async () => {
    let ready = false;
    const get = await start(() => ready, ['lease: lost', 'kafka-writes: refused']);
    const refused = await get('/readyz');
    expect(refused.status).toBe(503);
    expect(await refused.text()).toBe('not ready\n- lease: lost\n- kafka-writes: refused\n');
    ready = true;
    expect((await get('/readyz')).status).toBe(200);
  });

  it('when Prometheus scrapes /metrics, then it gets the exposition format', async () => {
    const get = await start(() => true);
    const response = await get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('when /status is asked, then it answers the status as JSON, made at that moment', async () => {
    let asked = 0;
    const get = await start(
      () => true,
      [],
      async () => ({ asked: ++asked }),
    );
    const response = await get('/status');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ asked: 1 });
    expect(await (await get('/status')).json()).toEqual({ asked: 2 });
    expect((await get('/status', 'POST')).status).toBe(405);
  });

  it('when no status is given, then /status is not served', async () => {
    const get = await start(() => true);
    expect((await get('/status')).status).toBe(404);
  });

  it('when another path or method is asked, then it answers 404 or 405', async () => {
    const get = await start(() => true);
    expect((await get('/admin')).status).toBe(404);
    expect((await get('/healthz', 'POST')).status).toBe(405);
  });
});
