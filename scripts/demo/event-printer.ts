/**
 * What the demo prints: one aligned line per event as it arrives (time, ce_type, bizId,
 * commandId, a short detail), the commands as they are sent, the contracts' final states and a
 * summary. Colours only on a terminal, so piped output and CI logs stay plain text.
 */
import { styleText } from 'node:util';
import { count, eventDetail } from '../../src/cli/ops/event-detail.js';
import type { BridgeEvent, DeadLetter } from '../../src/sdk/index.js';
import type { ContractRecord } from '../../src/simulator/index.js';
import type { StoryCommand } from './commands.js';
import type { Arrival } from './kafka-io.js';
import type { StoryReport } from './story.js';

type Style = Parameters<typeof styleText>[0];
const FAILURE = /\.command\./;
// The longest type the story produces; rarer, longer ones push their line's detail right.
const WIDTH = { type: 32, bizId: 13, commandId: 9 } as const;
const DETAIL_MAX = 110;

export class EventPrinter implements StoryReport {
  readonly #write: (text: string) => void;
  readonly #color: boolean;

  constructor(write: (text: string) => void, color: boolean) {
    this.#write = write;
    this.#color = color;
  }

  info(text: string): void {
    this.#write(`${text}\n`);
  }

  act(title: string): void {
    this.#write(`\n${this.#style('bold', `▸ ${title}`)}\n`);
  }

  sent({ type, command, note }: StoryCommand): void {
    const columns = [`→ ${type}`, command.bizId, command.commandId, note];
    this.#line(clock(new Date()), columns, 'cyan');
  }

  arrival(arrival: Arrival): void {
    if ('kind' in arrival) this.#deadLetter(arrival);
    else this.#event(arrival);
  }

  finalState(contract: ContractRecord): void {
    const signers = contract.signatories.map((s) => `${s.tenantName ?? s.tenantType} ${s.status}`);
    const facts = [
      count(contract.documents.length, 'document'),
      count(contract.approvals.length, 'approval'),
      count(contract.reminders.length, 'reminder'),
    ];
    const bizId = (contract.bizId ?? '').padEnd(WIDTH.bizId);
    const text = `${bizId}  contract ${contract.id}  ${contract.status}`;
    this.#write(`  ${this.#style('bold', text)}  ${signers.join(', ')}; ${facts.join(', ')}\n`);
  }

  /** Counts per type of the terminal events received, one line each. */
  summary(sent: number, endings: readonly BridgeEvent[], deadLetters: number): void {
    const counts = new Map<string, number>();
    for (const { type } of endings) counts.set(type, (counts.get(type) ?? 0) + 1);
    this.#write(`\nsummary: ${sent} commands sent, ${endings.length} terminal events received\n`);
    for (const [type, count] of [...counts].sort()) {
      this.#write(`  ${type.padEnd(WIDTH.type)}  ${count}\n`);
    }
    this.#write(`  ${'dead letters'.padEnd(WIDTH.type)}  ${deadLetters}\n`);
  }

  #event(event: BridgeEvent): void {
    const style: Style = FAILURE.test(event.type) ? 'red' : event.terminal ? 'green' : 'dim';
    const columns = [
      event.type,
      event.subject ?? '-',
      event.commandId ?? '-',
      eventDetail(event.type, event.data),
    ];
    this.#line(clock(new Date(event.time)), columns, style);
  }

  #deadLetter(letter: DeadLetter): void {
    const time = letter.failedAt ? new Date(letter.failedAt) : new Date();
    const what = `${letter.errorCode ?? 'no error code'}, copied from ${letter.source.topic ?? '?'}`;
    const bizId = letter.original.key?.toString() ?? '-';
    this.#line(clock(time), ['dead letter', bizId, letter.commandId ?? '-', what], 'yellow');
  }

  #line(time: string, [type = '', bizId = '', commandId = '', text = '']: string[], style: Style) {
    const columns = [
      type.padEnd(WIDTH.type),
      bizId.padEnd(WIDTH.bizId),
      commandId.padEnd(WIDTH.commandId),
      shorten(text),
    ];
    this.#write(`${this.#style('dim', time)}  ${this.#style(style, columns.join('  '))}\n`);
  }

  #style(style: Style, text: string): string {
    return this.#color ? styleText(style, text) : text;
  }
}

/** Local wall-clock time with milliseconds: events of one command arrive within a few. */
function clock(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const ms = String(date.getMilliseconds()).padStart(3, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${ms}`;
}

function shorten(text: string): string {
  return text.length <= DETAIL_MAX ? text : `${text.slice(0, DETAIL_MAX - 1)}…`;
}
