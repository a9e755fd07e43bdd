/**
 * How the real answer of an operation that ran goes out: normally, or spoiled by a fault (late,
 * cut by a reset, garbled, dripped, buried in padding). The side effect has taken place in every
 * case; a writer only decides what the client gets of the answer. Each resolves once it is done
 * with the response, true when the whole answer went out in a form a client can read, and
 * leaves nothing running once the connection is gone: a client giving up, or stop() cutting
 * connections after its grace, ends every timer and every write loop here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JSON_TYPE, sendJsonText } from '../http-io.js';
import { resetConnection, waitWhileConnected } from './responses.js';

export type Delivery =
  | { readonly kind: 'normal' }
  | { readonly kind: 'late'; readonly ms: number }
  | { readonly kind: 'resetAfterApply' }
  | { readonly kind: 'garbage' }
  | { readonly kind: 'drip'; readonly ms: number }
  | { readonly kind: 'huge'; readonly bytes: number };

/** The operation's answer as the platform would send it. */
export interface Answer {
  readonly status: number;
  /** The JSON text of the envelope. */
  readonly text: string;
}

export async function deliver(
  delivery: Delivery,
  req: IncomingMessage,
  res: ServerResponse,
  answer: Answer,
): Promise<boolean> {
  if (delivery.kind === 'normal') {
    sendJsonText(res, answer.status, answer.text);
    return true;
  }
  if (res.destroyed) return false;
  switch (delivery.kind) {
    case 'late':
      return sendLate(res, answer, delivery.ms);
    case 'resetAfterApply':
      return resetMidAnswer(req, res, answer);
    case 'garbage':
      return sendGarbage(res, answer);
    case 'drip':
      return drip(res, answer, delivery.ms);
    case 'huge':
      return sendHuge(res, answer, delivery.bytes);
  }
}

/** The whole answer after `ms`; nothing at all if the client left meanwhile. */
async function sendLate(res: ServerResponse, answer: Answer, ms: number): Promise<boolean> {
  if (!(await waitWhileConnected(ms, res))) return false;
  sendJsonText(res, answer.status, answer.text);
  return true;
}

/**
 * The head (announcing the whole body) and half the body, then a TCP reset. The reset waits for
 * the half to reach the kernel: a reset discards what is still queued, and the client would see
 * a plain reset instead of an answer cut short.
 */
function resetMidAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  answer: Answer,
): Promise<boolean> {
  const body = Buffer.from(answer.text);
  res.writeHead(answer.status, { 'content-type': JSON_TYPE, 'content-length': body.length });
  return new Promise((resolve) => {
    res.write(body.subarray(0, Math.ceil(body.length / 2)), () => {
      resetConnection(req);
      resolve(false);
    });
  });
}

/** Bytes that are not UTF-8 ('\xC3' must start a two-byte sequence; '\xFF' never occurs). */
const GARBLED = Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0x00]);

/**
 * A 200 that claims JSON and is not: the real answer cut in the middle, then bytes that are not
 * even text. Half an object never parses, whatever follows it.
 */
function sendGarbage(res: ServerResponse, answer: Answer): boolean {
  const text = Buffer.from(answer.text);
  const body = Buffer.concat([text.subarray(0, Math.floor(text.length / 2)), GARBLED]);
  res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': body.length });
  res.end(body);
  return false;
}

/** The head at once (with the whole body's length), then one byte of the body every `ms`. */
function drip(res: ServerResponse, answer: Answer, ms: number): Promise<boolean> {
  const body = Buffer.from(answer.text);
  res.writeHead(answer.status, { 'content-type': JSON_TYPE, 'content-length': body.length });
  res.flushHeaders();
  return new Promise((resolve) => {
    let sent = 0;
    const onClose = () => {
      clearInterval(timer);
      resolve(false);
    };
    const timer = setInterval(() => {
      sent += 1;
      if (sent < body.length) {
        res.write(body.subarray(sent - 1, sent));
        return;
      }
      clearInterval(timer);
      res.off('close', onClose);
      res.end(body.subarray(sent - 1));
      resolve(true);
    }, ms);
    res.once('close', onClose);
  });
}

const PADDING = Buffer.alloc(65_536, 'x');
const PADDING_END = Buffer.from('"}');

/**
 * The real envelope with a `padding` member of `x`s added, `bytes` long in all (at least the
 * real answer): valid JSON a client must refuse by size. The padding is streamed from one
 * shared 64 KiB buffer, and only while the socket keeps up ('drain'), so a gigabyte costs no
 * more memory than a kilobyte.
 */
function sendHuge(res: ServerResponse, answer: Answer, bytes: number): Promise<boolean> {
  // Both envelopes are objects: their closing brace makes way for the padding member.
  const head = Buffer.from(`${answer.text.slice(0, -1)},"padding":"`);
  let padding = Math.max(0, bytes - head.length - PADDING_END.length);
  const length = head.length + padding + PADDING_END.length;
  res.writeHead(answer.status, { 'content-type': JSON_TYPE, 'content-length': length });
  res.write(head);
  return new Promise((resolve) => {
    const onClose = () => {
      res.off('drain', pump);
      resolve(false);
    };
    function pump() {
      while (padding > 0) {
        const chunk = padding < PADDING.length ? PADDING.subarray(0, padding) : PADDING;
        padding -= chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      res.off('close', onClose);
      res.end(PADDING_END);
      resolve(true);
    }
    res.once('close', onClose);
    pump();
  });
}
