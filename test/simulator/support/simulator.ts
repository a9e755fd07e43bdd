// One simulator per test file, on an ephemeral port, with the default fixtures and no logging.
import { afterAll, beforeAll } from 'vitest';
import {
  type RunningSimulator,
  type SimulatorOptions,
  startSimulator,
} from '../../../src/simulator/index.js';
import { RawPlatform } from './raw-platform.js';

export interface SimulatorHandle {
  readonly sim: RunningSimulator;
  readonly platform: RawPlatform;
}

/** Registers start/stop hooks; read the handle inside tests (it is filled in beforeAll). */
export function useSimulator(options: SimulatorOptions = {}): SimulatorHandle {
  const handle = {} as { sim: RunningSimulator; platform: RawPlatform };
  beforeAll(async () => {
    handle.sim = await startSimulator({ log: false, ...options });
    handle.platform = new RawPlatform(handle.sim.url, {
      nonce: options.auth?.nonce,
      prefix: options.auth?.headerPrefix,
    });
  });
  afterAll(() => handle.sim?.stop());
  return handle;
}
