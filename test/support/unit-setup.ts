// The unit files share their worker's modules (isolate: false, for the import time), so what one
// file changes in the process would reach the next. After each test the fake clock is undone
// here (spies, stubbed env and globals by the config: restoreMocks, unstubEnvs, unstubGlobals); a
// file that starts with the timers still swapped fails, naming the file that left them so.
import { afterEach, beforeAll, expect, vi } from 'vitest';

const shared = globalThis as typeof globalThis & {
  unitSetup?: { readonly setTimeout: typeof setTimeout; lastFile?: string };
};
shared.unitSetup ??= { setTimeout: globalThis.setTimeout };
const state = shared.unitSetup;

beforeAll(() => {
  if (globalThis.setTimeout !== state.setTimeout || vi.isFakeTimers()) {
    throw new Error(`setTimeout is not the real one: ${state.lastFile} left it swapped`);
  }
});

afterEach(() => {
  vi.useRealTimers();
  state.lastFile = expect.getState().testPath;
});
