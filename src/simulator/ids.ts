/**
 * Identifiers shaped like the real platform's: 19-digit decimal snowflakes beyond 2^53. A client
 * that turns them into JavaScript numbers loses precision at once, instead of in production.
 */
export class IdSequence {
  #next: bigint;

  constructor(start = 3_141_592_653_589_793_238n) {
    this.#next = start;
  }

  next(): string {
    this.#next += 1n;
    return this.#next.toString();
  }
}
