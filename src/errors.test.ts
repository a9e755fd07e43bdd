import { describe, expect, it } from 'vitest';
import { SimulatorNotInstalled } from './errors.js';

describe('SimulatorNotInstalled.fromImport', () => {
  it('when an import fails for a package that is not installed, then it names the package', async () => {
    // A specifier in a variable: TypeScript would refuse the literal of a missing package.
    const specifier: string = 'signing-bridge-no-such-package';
    const error = await import(specifier).catch((e: unknown) => e);
    const missing = SimulatorNotInstalled.fromImport(error);
    expect(missing?.code).toBe('SB_ERR_SIMULATOR_NOT_INSTALLED');
    expect(missing?.details).toEqual({ missing: 'signing-bridge-no-such-package' });
    expect(missing?.message).toContain("the Dockerfile's `simulator` target");
    expect(missing?.cause).toBe(error);
  });

  it('when an import fails for any other reason, then it leaves the error alone', () => {
    expect(SimulatorNotInstalled.fromImport(new SyntaxError('Unexpected token'))).toBeUndefined();
    expect(SimulatorNotInstalled.fromImport(undefined)).toBeUndefined();
  });
});
