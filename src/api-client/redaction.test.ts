/**
 * The app secret must never leave the signer: not in a message, not in details, not in a cause,
 * not in what a logger would print for the client or for a call report.
 */
import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { SigningClient } from './client.js';
import type { CallInfo } from './settings.js';

const SECRET = 'Sup3r-S3cret-Value-9f2c';

/** Everything a logger could print for a value: inspect() walks causes and private-free fields. */
function printed(value: unknown): string {
  const json = JSON.stringify(value, (_, v: unknown) =>
    v instanceof Error ? { ...v, message: v.message, stack: v.stack } : v,
  );
  return `${inspect(value, { depth: 10, showHidden: true })}\n${json}`;
}

function setup() {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get('http://p.test');
  const calls: CallInfo[] = [];
  const client = new SigningClient({
    baseUrl: 'http://p.test',
    appToken: 'app-token',
    appSecret: SECRET,
    dispatcher: agent,
    requestsPerSecond: 0,
    retry: { maxAttempts: 1 },
    onCall: (info) => calls.push(info),
  });
  return { pool, client, calls };
}

describe('redaction of the app secret', () => {
  it('when every kind of failure happens, then no error, cause or call report holds the secret', async () => {
    const { pool, client, calls } = setup();
    const reply = (status: number, body: object | string) =>
      pool.intercept({ path: '/v2/contract/notice', method: 'POST' }).reply(status, body);
    reply(442, { code: 442, message: 'bad token' });
    reply(503, 'down');
    reply(200, 'not json');
    pool
      .intercept({ path: '/v2/contract/notice', method: 'POST' })
      .replyWithError(new Error('refused'));
    const remind = () => client.remindSignatories({ bizId: 'b1' }).catch((e: unknown) => e);

    const errors = [
      await remind(),
      await remind(),
      await remind(),
      await remind(),
      await client.remindSignatories({}).catch((e: unknown) => e),
      await client
        .addDocumentByFile({ bizId: 'b', title: 't', file: Buffer.from('x') })
        .catch((e: unknown) => e),
    ];
    expect(errors.map((e) => (e as { code: string }).code)).toEqual([
      'SB_ERR_PLATFORM_REJECTED',
      'SB_ERR_TRANSPORT_HTTP_STATUS',
      'SB_ERR_RESPONSE_INVALID',
      'SB_ERR_TRANSPORT_NOT_SENT',
      'SB_ERR_REQUEST_INVALID',
      'SB_ERR_FILE_REJECTED',
    ]);
    for (const error of errors) expect(printed(error)).not.toContain(SECRET);
    expect(calls).toHaveLength(4);
    expect(printed(calls)).not.toContain(SECRET);
  });

  it('when the client itself is printed, then the secret is not shown', () => {
    expect(printed(setup().client)).not.toContain(SECRET);
  });

  it('when the options are invalid, then the error does not quote the secret', () => {
    const error = (() => {
      try {
        return new SigningClient({ baseUrl: SECRET, appToken: '', appSecret: SECRET });
      } catch (e) {
        return e;
      }
    })();
    expect((error as Error).name).toBe('ConfigInvalid');
    expect(printed(error)).not.toContain(SECRET);
  });
});
