/** Records as lines: human (time, what, bizId, commandId, details, in columns) or JSON. */
import type { BridgeEvent } from '../../sdk/index.js';
import { eventDetail } from './event-detail.js';
import type { Output, Style } from './operator.js';

const FAILURE = /\.command\./;
const WIDTH = { what: 44, id: 16 } as const;

export interface Columns {
  readonly time: string;
  readonly what: string;
  readonly style: Style;
  readonly bizId?: string | undefined;
  readonly commandId?: string | undefined;
  readonly detail: string;
}

export function humanLine(out: Output, columns: Columns): string {
  const { time, what, style, bizId, commandId, detail } = columns;
  const cells = [
    time,
    out.style(style, what.padEnd(WIDTH.what)),
    (bizId ?? '-').padEnd(WIDTH.id),
    (commandId ?? '-').padEnd(WIDTH.id),
    detail,
  ];
  return cells.join('  ').trimEnd();
}

export function eventJson(event: BridgeEvent) {
  const { type, id, subject, commandId, time, terminal, data, record } = event;
  return { time, type, bizId: subject, commandId, id, terminal, ...place(record), data };
}

export function printEvent(out: Output, event: BridgeEvent, extra: object = {}): void {
  const { type, time, subject, commandId, terminal, data } = event;
  const style: Style = FAILURE.test(type) ? 'red' : terminal ? 'green' : 'dim';
  const detail = `${eventDetail(type, data)}${terminal ? '  (end)' : ''}`;
  const human = humanLine(out, { time, what: type, style, bizId: subject, commandId, detail });
  out.result({ ...extra, ...eventJson(event) }, human);
}

export function place(record: { topic: string; partition: number; offset: string }) {
  return { topic: record.topic, partition: record.partition, offset: record.offset };
}
