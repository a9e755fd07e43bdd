/**
 * Authentication as the platform notes describe it, checked by a simulator that verifies the
 * signature itself: refusals arrive as HTTP 441/442/443 with a JSON body and become
 * PlatformRejected of family 'auth', never retried, never quoting the secret.
 */
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { md5Signer, type SigningClientOptions } from '../../src/api-client/index.js';
import { PlatformRejected } from '../../src/errors.js';
import {
  type AuthOptions,
  type RunningSimulator,
  startSimulator,
} from '../../src/simulator/index.js';
import { clientFor, rejection } from './helpers.js';

function withSimulator(auth: AuthOptions | undefined, body: (sim: () => RunningSimulator) => void) {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ log: false, auth });
  });
  afterAll(() => sim.stop());
  body(() => sim);
}

/** Calls remind (no contract needed to get past authentication) and returns the auth refusal. */
async function authRefusal(sim: RunningSimulator, options: Partial<SigningClientOptions>) {
  const client = clientFor(sim, options);
  try {
    const error = await rejection(client.remindSignatories({ bizId: 'any' }));
    expect(error).toBeInstanceOf(PlatformRejected);
    return error as PlatformRejected;
  } finally {
    await client.close();
  }
}

async function passesAuth(sim: RunningSimulator, options: Partial<SigningClientOptions>) {
  const client = clientFor(sim, options);
  try {
    // 11011126: the contract is unknown, which the platform says only after authentication.
    const error = await rejection(client.remindSignatories({ bizId: 'any' }));
    return (error as PlatformRejected).details.platformCode === '11011126';
  } finally {
    await client.close();
  }
}

describe('three-header mode (the default)', () => {
  withSimulator(undefined, (sim) => {
    it('when token and secret are right, then the signature is accepted', async () => {
      expect(await passesAuth(sim(), {})).toBe(true);
    });

    it('when the secret is wrong, then 443 comes back as HTTP 443 without the secret in it', async () => {
      const secret = 'wrong-secret-1234';
      const error = await authRefusal(sim(), { appSecret: secret });
      expect(error.details).toMatchObject({ platformCode: '443', family: 'auth', httpStatus: 443 });
      expect(error.retryable).toBe(false);
      expect(
        `${error.message}${inspect(error, { depth: 5 })}${JSON.stringify(error)}`,
      ).not.toContain(secret);
    });

    it('when the token is unknown, then 442 comes back as HTTP 442', async () => {
      const error = await authRefusal(sim(), { appToken: 'stranger' });
      expect(error.details).toMatchObject({
        platformCode: '442',
        platformName: 'INVALID TOKEN',
        httpStatus: 442,
      });
    });

    it('when the headers carry another prefix, then 441 says one is missing', async () => {
      const error = await authRefusal(sim(), { headerPrefix: 'x-other-' });
      expect(error.details).toMatchObject({ platformCode: '441', httpStatus: 441 });
    });

    it('when a plugged-in signer signs differently, then the simulator refuses it', async () => {
      const signer = () => ({
        accessToken: 'demo-app-token',
        timestamp: String(Date.now()),
        signature: 'f'.repeat(32),
      });
      expect((await authRefusal(sim(), { signer })).details.platformCode).toBe('443');
    });
  });
});

describe('nonce mode with a vendor prefix', () => {
  withSimulator({ nonce: true, headerPrefix: 'x-vendor-' }, (sim) => {
    it('when the client sends a fresh nonce per request, then every request is accepted', async () => {
      const options = { nonce: true, headerPrefix: 'x-vendor-' };
      expect(await passesAuth(sim(), options)).toBe(true);
      expect(await passesAuth(sim(), options)).toBe(true);
    });

    it('when the client sends no nonce, then 441 names the missing header', async () => {
      const error = await authRefusal(sim(), { headerPrefix: 'x-vendor-' });
      expect(error.details).toMatchObject({ platformCode: '441' });
      expect(error.details.platformMessage).toContain('x-vendor-nonce');
    });

    it('when a signer reuses one nonce, then the second request is refused with 445', async () => {
      const fixed = { nonce: true, headerPrefix: 'x-vendor-' };
      const client = clientFor(sim(), {
        ...fixed,
        signer: (input) => md5Signer({ ...input, nonce: 'same-nonce-every-time' }),
      });
      try {
        await rejection(client.remindSignatories({ bizId: 'any' }));
        const second = (await rejection(
          client.remindSignatories({ bizId: 'any' }),
        )) as PlatformRejected;
        expect(second.details.platformCode).toBe('445');
      } finally {
        await client.close();
      }
    });
  });
});
