// Running the external tools the local broker needs (mvn, java, keytool) to completion, and turning
// their failures into messages that say what to install or what went wrong.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MISSING_TOOL_HINTS: Record<string, string> = {
  java: 'install a JDK 17 (the local Kafka broker runs on the JVM)',
  keytool: "install a JDK 17 (its keytool makes the local broker's TLS certificates)",
  mvn: 'install Maven 3.8+ (it downloads the Kafka broker jars from Maven Central)',
};

/** Runs a command to completion, capturing stdout and stderr together for error messages. */
export function runTool(command: string, args: string[]) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('error', (error) => reject(toolError(command, error)));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** A missing tool (ENOENT) becomes an error naming what to install; others pass unchanged. */
export function toolError(command: string, error: Error): Error {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return error;
  const hint = MISSING_TOOL_HINTS[command] ?? 'install it';
  return new Error(`${command} not found on PATH: ${hint}`, { cause: error });
}

/** The last lines of a tool's output or a log, for error messages. */
export function lastLines(text: string, lines: number): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
