// The ports a KRaft node listens on (clients and its controller, plus the SASL_SSL
// and mutual-TLS listeners when secured), on loopback.
import { type AddressInfo, createServer, type Server } from 'node:net';

export const HOST = '127.0.0.1';

export interface BrokerPorts {
  port: number;
  controllerPort: number;
  secured?: SecuredPorts;
}

export interface SecuredPorts {
  saslSsl: number;
  mtls: number;
}

/** The requested client port (0: any free one) and free ports for the other listeners. */
export async function pickPorts(requested = 0, secured = false): Promise<BrokerPorts> {
  try {
    const others = secured ? [0, 0, 0] : [0];
    const [port = requested, controllerPort = 0, saslSsl = 0, mtls = 0] = await reservePorts([
      requested,
      ...others,
    ]);
    return { port, controllerPort, ...(secured ? { secured: { saslSsl, mtls } } : {}) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    const hint = 'pass another port, or none to get a free one';
    throw new Error(`port ${requested} on ${HOST} is already in use: ${hint}`, { cause: error });
  }
}

/** Binds the given ports (0: any free one) at once, then releases them for Kafka to bind. */
async function reservePorts(wanted: number[]): Promise<number[]> {
  const servers = wanted.map(() => createServer());
  const bind = (port: number, index: number) =>
    new Promise<number>((resolve, reject) => {
      const server = servers[index] as Server;
      server.once('error', reject);
      server.listen(port, HOST, () => resolve((server.address() as AddressInfo).port));
    });
  try {
    return await Promise.all(wanted.map(bind));
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/** Free client and controller ports for each of `nodes` nodes, reserved together. */
export async function pickClusterPorts(nodes: number): Promise<BrokerPorts[]> {
  const ports = await reservePorts(Array.from({ length: nodes * 2 }, () => 0));
  return Array.from({ length: nodes }, (_, index) => ({
    port: ports[index * 2] as number,
    controllerPort: ports[index * 2 + 1] as number,
  }));
}
