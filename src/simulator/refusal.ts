/**
 * A rule of the platform refused a request. Handlers throw it from deep inside rule checks; the
 * router turns it into `errorBody(code)`. Any other exception is an internal fault (21990001).
 */
import { platformCode } from '../schemas/platform/codes.js';

export class PlatformRefusal extends Error {
  override readonly name = 'PlatformRefusal';

  constructor(
    /** A key of PLATFORM_CODES; checked at construction so a typo fails loudly in tests. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    platformCode(code);
  }
}

export function refuse(code: string, message: string): never {
  throw new PlatformRefusal(code, message);
}

/** Runs `check`, answering any refusal it raises with `code` instead (same message). */
export function refuseAs<T>(code: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof PlatformRefusal) refuse(code, error.message);
    throw error;
  }
}
