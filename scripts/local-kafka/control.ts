// How `cli.ts stop|kill|start|restart --node <id>`, run in another shell, reaches the cluster
// that `cli.ts start --nodes N` runs in the foreground: a small HTTP server on loopback that
// takes one node action per request, with a token only the state file (mode 0600) holds.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LocalKafkaCluster } from './cluster.js';
import { HOST } from './ports.js';

export const NODE_ACTIONS = ['start', 'stop', 'kill', 'restart'] as const;
export type NodeAction = (typeof NODE_ACTIONS)[number];

export interface ControlAddress {
  port: number;
  token: string;
}

export interface ControlServer extends ControlAddress {
  close(): Promise<void>;
}

const PAST_TENSE: Record<NodeAction, string> = {
  start: 'started',
  stop: 'stopped (controlled shutdown)',
  kill: 'killed (SIGKILL)',
  restart: 'restarted',
};

/** Serves POST /nodes/<id>/<action>; `log` hears of each action done or failed. */
export async function serveControl(
  cluster: LocalKafkaCluster,
  log: (line: string) => void,
): Promise<ControlServer> {
  const token = randomBytes(16).toString('hex');
  const server = createServer((request, response) => {
    handle(cluster, token, request, log).then(
      ({ status, text }) => reply(response, status, text),
      (error: unknown) => reply(response, 500, (error as Error).message),
    );
  });
  server.listen(0, HOST);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { port, token, close };
}

async function handle(
  cluster: LocalKafkaCluster,
  token: string,
  request: IncomingMessage,
  log: (line: string) => void,
): Promise<{ status: number; text: string }> {
  if (request.headers.authorization !== `Bearer ${token}`)
    return { status: 401, text: 'wrong or missing token' };
  const match = /^\/nodes\/(\d+)\/(\w+)$/.exec(request.url ?? '');
  const action = NODE_ACTIONS.find((known) => known === match?.[2]);
  const nodeId = Number(match?.[1]);
  if (request.method !== 'POST' || !action)
    return { status: 404, text: `expected POST /nodes/<id>/<${NODE_ACTIONS.join('|')}>` };
  if (!cluster.nodeIds.includes(nodeId))
    return { status: 404, text: `no node ${nodeId}: the nodes are ${cluster.nodeIds.join(', ')}` };
  const started = performance.now();
  await cluster[action](nodeId).catch((error: unknown) => {
    log(`node ${nodeId}: ${action} failed: ${(error as Error).message}`);
    throw error;
  });
  const text = `node ${nodeId} ${PAST_TENSE[action]} in ${seconds(started)} s`;
  log(text);
  return { status: 200, text };
}

function reply(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(`${text}\n`);
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(1);
}

/** Asks the foreground cluster to act on one node; resolves with what it did. */
export async function requestNodeAction(
  control: ControlAddress,
  nodeId: number,
  action: NodeAction,
): Promise<string> {
  const response = await fetch(`http://${HOST}:${control.port}/nodes/${nodeId}/${action}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${control.token}` },
  });
  const text = (await response.text()).trim();
  if (!response.ok) throw new Error(`node ${nodeId}: ${action} failed: ${text}`);
  return text;
}
