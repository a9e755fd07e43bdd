/**
 * prom-client on the hot path, cheaply. Each `inc({ a, b })` of a labelled counter validates the
 * labels and builds a string key of them, and each `observe({ a }, v)` of a histogram makes a
 * closure and an object besides: a command and its calls make about six of these. Here a label
 * set's cell is found with a Map look-up per label value, and made once:
 *
 * - a counter's increments are kept as a number in the cell and handed to prom-client whenever
 *   the counter is read (its `collect`, at every scrape): what Prometheus reads is the same;
 * - a histogram's cell is prom-client's `labels()` handle, made once per label set.
 *
 * The label values are those prom-client would keep a series for anyway: bounded as before.
 */
import { Counter, type CounterConfiguration } from 'prom-client';

/** A cell per label value, made on first use. */
export class Cells<T> {
  readonly #cells = new Map<string, T>();

  constructor(readonly make: (value: string) => T) {}

  get(value: string): T {
    let cell = this.#cells.get(value);
    if (cell === undefined) {
      cell = this.make(value);
      this.#cells.set(value, cell);
    }
    return cell;
  }

  values(): IterableIterator<T> {
    return this.#cells.values();
  }
}

/** A cell per pair of label values, made on first use. */
export class PairCells<T> {
  readonly #rows: Cells<Cells<T>>;

  constructor(make: (first: string, second: string) => T) {
    this.#rows = new Cells((first) => new Cells((second) => make(first, second)));
  }

  get(first: string, second: string): T {
    return this.#rows.get(first).get(second);
  }

  *values(): Iterable<T> {
    for (const row of this.#rows.values()) yield* row.values();
  }
}

interface PendingCount<L extends string> {
  readonly labels: Record<L, string>;
  count: number;
}

/** A counter of two labels whose increments reach prom-client when it is read. */
export class PairCounter<A extends string, B extends string> {
  readonly #pending: PairCells<PendingCount<A | B>>;

  constructor(config: CounterConfiguration<A | B> & { readonly labelNames: readonly [A, B] }) {
    const [first, second] = config.labelNames;
    const pending = new PairCells<PendingCount<A | B>>((a, b) => ({
      labels: { [first]: a, [second]: b } as Record<A | B, string>,
      count: 0,
    }));
    this.#pending = pending;
    new Counter({
      ...config,
      collect() {
        for (const cell of pending.values()) {
          if (cell.count === 0) continue;
          this.inc(cell.labels, cell.count);
          cell.count = 0;
        }
      },
    });
  }

  /** One more in the series of these two label values (in the order of `labelNames`). */
  inc(first: string, second: string): void {
    this.#pending.get(first, second).count++;
  }
}
