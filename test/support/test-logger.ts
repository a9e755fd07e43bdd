import pino, { type Logger } from 'pino';

/**
 * Logs of the code under test, on stderr: warnings and errors only, unless BRIDGE_TEST_LOG
 * says otherwise.
 */
export function testLogger(name: string): Logger {
  return pino({ name, level: process.env.BRIDGE_TEST_LOG ?? 'warn' }, pino.destination(2));
}
