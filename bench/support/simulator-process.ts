/**
 * The simulator as benchmarks run it: `signing-bridge simulator --port 0 --quiet` (plus any
 * fault flags) in a child process, so it has an event loop of its own, as in real use.
 */
import { NodeChild } from './child-process.js';

export interface SimulatorProcess {
  readonly child: NodeChild;
  readonly url: string;
}

/** Resolves once the simulator listens; `flags` are extra simulator flags, e.g. `--rps 20`. */
export async function startSimulatorProcess(
  options: { readonly flags?: readonly string[]; readonly cpuProfDir?: string } = {},
): Promise<SimulatorProcess> {
  const profile = options.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfDir] : [];
  const child = new NodeChild({
    name: 'simulator',
    nodeFlags: profile,
    args: ['src/cli/main.ts', 'simulator', '--port', '0', '--quiet', ...(options.flags ?? [])],
    // The listening line is how we learn the URL, not news.
    echo: (line, stream) => stream === 'stderr' && !line.includes('listening on'),
  });
  try {
    const [, url = ''] = await child.waitForLine(/listening on (http:\/\/\S+)/, 60_000);
    return { child, url };
  } catch (error) {
    await child.stop();
    throw new Error(`the simulator did not start: ${(error as Error).message}`, { cause: error });
  }
}
