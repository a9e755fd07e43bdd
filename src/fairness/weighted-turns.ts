/**
 * Weighted fair turns between classes of work (stride scheduling): every class has a *pass* that
 * grows by 1/weight with each turn it takes, and of the classes that have work, the one with the
 * lowest pass goes next. So while classes a and b both have work, a takes weight(a) turns for
 * every weight(b) that b takes, give or take one, and a class with work never starves.
 *
 * A class without work does not bank turns: the turns' clock is the pass at which the last turn
 * began, and a class's pass is never below it. A class coming back from idleness starts level
 * with the others (ahead of a class that has just taken a turn), which is what lets an idle
 * class lend its share and have it back at once.
 */
export class WeightedTurns {
  readonly #weights: ReadonlyMap<string, number>;
  readonly #pass = new Map<string, number>();
  #clock = 0;

  /** `weights`: each class's weight, a positive number; unlisted classes weigh 1. */
  constructor(weights: ReadonlyMap<string, number>) {
    for (const [name, weight] of weights) {
      if (!(weight > 0 && Number.isFinite(weight))) {
        throw new RangeError(`the weight of ${JSON.stringify(name)} must be a positive number`);
      }
    }
    this.#weights = weights;
  }

  weight(name: string): number {
    return this.#weights.get(name) ?? 1;
  }

  /**
   * The class whose turn it is among `candidates` (those with work); undefined when there is
   * none. Of classes level with each other, the heavier goes first, then the earlier given.
   */
  next(candidates: Iterable<string>): string | undefined {
    let best: string | undefined;
    let bestPass = Number.POSITIVE_INFINITY;
    for (const name of candidates) {
      const pass = this.#passOf(name);
      const level = pass === bestPass && best !== undefined;
      if (pass < bestPass || (level && this.weight(name) > this.weight(best as string))) {
        best = name;
        bestPass = pass;
      }
    }
    return best;
  }

  /** The class took a turn. */
  took(name: string): void {
    const start = this.#passOf(name);
    this.#clock = Math.max(this.#clock, start);
    this.#pass.set(name, start + 1 / this.weight(name));
  }

  #passOf(name: string): number {
    return Math.max(this.#pass.get(name) ?? 0, this.#clock);
  }
}
