/**
 * A steady stream of commands sent through the SDK (CommandProducer.send), one send per command
 * at a fixed rate, each on its own: a send held up while a partition's leader moves does not hold
 * back the next, as with services that send on their own schedules. It keeps where every send that
 * resolved says its command went, and why every send that rejected did.
 */
import type { Command } from '../../src/schemas/messages/index.js';
import type { CommandProducer, SentCommand } from '../../src/sdk/index.js';

export interface StreamedCommand {
  readonly type: 'remind';
  readonly command: Command<'remind'>;
}

export class CommandStream {
  /** Every send that resolved: the command is written, at this partition and offset. */
  readonly sent: SentCommand[] = [];
  /** Every send that rejected, with its error: the command may or may not be written. */
  readonly refused: Array<{ readonly commandId: string; readonly error: string }> = [];
  /** When each send began and settled (Date.now()), by commandId. */
  readonly times = new Map<string, { readonly begun: number; settled?: number }>();
  readonly #producer: CommandProducer;
  readonly #commands: readonly StreamedCommand[];
  readonly #sending = new Set<Promise<void>>();
  readonly #timer: NodeJS.Timeout;
  #next = 0;

  private constructor(
    producer: CommandProducer,
    commands: readonly StreamedCommand[],
    perSecond: number,
  ) {
    this.#producer = producer;
    this.#commands = commands;
    this.#timer = setInterval(() => this.#sendNext(), 1_000 / perSecond);
  }

  /** Starts sending `commands` in order, `perSecond` a second, until stopped or all are sent. */
  static start(
    producer: CommandProducer,
    commands: readonly StreamedCommand[],
    perSecond: number,
  ): CommandStream {
    return new CommandStream(producer, commands, perSecond);
  }

  /** How many sends were begun. */
  get begun(): number {
    return this.#next;
  }

  /** Whether every command was begun before the stream was stopped. */
  get exhausted(): boolean {
    return this.#next >= this.#commands.length;
  }

  /** Stops sending; resolves once every send begun has resolved or rejected. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    while (this.#sending.size > 0) await Promise.allSettled([...this.#sending]);
  }

  #sendNext(): void {
    const next = this.#commands[this.#next];
    if (next === undefined) {
      clearInterval(this.#timer);
      return;
    }
    this.#next += 1;
    const times: { begun: number; settled?: number } = { begun: Date.now() };
    this.times.set(next.command.commandId, times);
    const sending = this.#producer.send(next.type, next.command).then(
      (sent) => {
        times.settled = Date.now();
        this.sent.push(sent);
      },
      (error: unknown) => {
        times.settled = Date.now();
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        this.refused.push({ commandId: next.command.commandId, error: message });
      },
    );
    this.#sending.add(sending);
    void sending.finally(() => this.#sending.delete(sending));
  }
}
