/**
 * Why the bridge is not ready, besides its start and its contact with the group: each part that
 * can make it unable to do its work (Kafka refusing its writes, say) holds a named cause until it
 * can again. /readyz answers 503 while any is held and names them; the first hold of a cause is
 * logged by whoever holds it, once.
 */
export class Readiness {
  readonly #causes = new Map<string, string>();

  /** Holds the cause with what to say of it; true when it was not held yet. */
  hold(cause: string, detail: string): boolean {
    const fresh = !this.#causes.has(cause);
    this.#causes.set(cause, detail);
    return fresh;
  }

  /** Lets the cause go; true when it was held. */
  release(cause: string): boolean {
    return this.#causes.delete(cause);
  }

  /** Whether the cause is held. */
  holds(cause: string): boolean {
    return this.#causes.has(cause);
  }

  /** The causes held, each with what to say of it: `cause: detail`. */
  reasons(): string[] {
    return [...this.#causes].map(([cause, detail]) => `${cause}: ${detail}`);
  }
}
