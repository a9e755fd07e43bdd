import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as errors from '../errors.js';
import * as client from './client.js';

const API_CLIENT = new URL('../api-client/', import.meta.url);

/** The project's error classes the api-client's own code constructs. */
function errorsThrownByTheClient(): string[] {
  const sources = readdirSync(API_CLIENT)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => readFileSync(new URL(name, API_CLIENT), 'utf8'));
  const constructed = sources.flatMap((source) => [...source.matchAll(/new ([A-Z]\w+)\(/g)]);
  const names = new Set(constructed.map((match) => match[1] as string));
  return [...names].filter((name) => {
    const value = (errors as Record<string, unknown>)[name];
    return typeof value === 'function' && value.prototype instanceof errors.SigningBridgeError;
  });
}

describe('signing-bridge/client', () => {
  it('when the api-client constructs one of our errors, then the client entry exports that class', () => {
    const thrown = errorsThrownByTheClient();
    expect(thrown.length).toBeGreaterThan(5);
    for (const name of thrown) {
      expect((client as Record<string, unknown>)[name], name).toBe(
        (errors as Record<string, unknown>)[name],
      );
    }
    expect(client.SigningClient).toBeTypeOf('function');
    expect(client.SigningBridgeError).toBe(errors.SigningBridgeError);
  });
});
