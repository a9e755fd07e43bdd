/**
 * prom-client on the hot path, cheaply. Each `inc({ a, b })` of a labelled counter validates the
 * labels and builds a string key of them, and each `observe({ a }, v)` of a histogram makes a
 * closure and an object besides: a command and its calls make about six of these. Here a label
 * set's cell is found with a Map look-up per label value, and made once:
 *
 * - a counter's increments are kept as a number in the cell and handed to prom-client whenever
 *   the counter is read (its `collect`, at every scrape): what Prometheus reads is the same;
 * - a histogram's cell counts in an array indexed by bucket (CellHistogram): even through a
 *   `labels()` handle, prom-client's `observe` validates and hashes the labels again and counts
 *   in an object keyed by the bucket's bound, a float made a property name at each observation.
 *
 * The label values are those prom-client would keep a series for anyway: bounded as before.
 */
import { format, inspect } from 'node:util';
import { Counter, type CounterConfiguration, type Metric, type Registry } from 'prom-client';

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

type Labels<L extends string> = Readonly<Record<L, string>>;

/** One label set's series of a CellHistogram. */
export class HistogramCell {
  /** Per bucket, the observations it is the first to hold; the last: those above every bound. */
  readonly buckets: number[];
  sum = 0;
  count = 0;
  readonly #firstObserved: (cell: HistogramCell) => void;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    readonly bounds: readonly number[],
    firstObserved: (cell: HistogramCell) => void,
  ) {
    this.#firstObserved = firstObserved;
    this.buckets = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    if (!Number.isFinite(value))
      throw new TypeError(`Value is not a valid number: ${format(value)}`);
    // The first bucket whose bound holds the value (prom-client's `le`), else the last one.
    const { bounds, buckets } = this;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    buckets[i] = (buckets[i] as number) + 1;
    this.sum += value;
    if (this.count++ === 0) this.#firstObserved(this);
  }

  zero(): void {
    this.buckets.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

/** What prom-client's Registry reads of each sample (the types it declares expect its classes). */
interface Sample {
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
  readonly metricName: string;
}

/**
 * A histogram prom-client's Registry reads through `get()`, as it reads its own (a registered
 * metric is any object with a name, help, type and `get()`): the same samples, in the same
 * order, so the exposition is the same as a prom-client Histogram's fed the same observations.
 * Its label sets are listed in the order of their first observation since the last reset.
 */
export class CellHistogram<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #labelNames: readonly L[];
  readonly #bounds: readonly number[];
  readonly #cells = new Map<string, HistogramCell>();
  #observed: HistogramCell[] = [];

  constructor(config: {
    readonly name: string;
    readonly help: string;
    readonly labelNames: readonly L[];
    readonly buckets: readonly number[];
    readonly registers: readonly Registry[];
  }) {
    this.name = config.name;
    this.help = config.help;
    this.#labelNames = config.labelNames;
    this.#bounds = [...config.buckets];
    // Typed as prom-client's own classes only; the Registry needs no more than `get()`.
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** The cell of this label set: made on first use, then the same one. */
  labels(labels: Labels<L>): HistogramCell {
    const other = Object.keys(labels).find((name) => !this.#labelNames.includes(name as L));
    if (other !== undefined) {
      throw new Error(
        `Added label "${other}" is not included in initial labelset: ${inspect(this.#labelNames)}`,
      );
    }
    const key = this.#labelNames.map((name) => labels[name]).join('\0');
    let cell = this.#cells.get(key);
    if (cell === undefined) {
      cell = new HistogramCell({ ...labels }, this.#bounds, (first) => this.#observed.push(first));
      this.#cells.set(key, cell);
    }
    return cell;
  }

  async get() {
    const { name, help, type, aggregator } = this;
    return {
      name,
      help,
      type,
      aggregator,
      values: this.#observed.flatMap((cell) => this.#samples(cell)),
    };
  }

  reset(): void {
    for (const cell of this.#cells.values()) cell.zero();
    this.#observed = [];
  }

  /** Cumulative buckets, +Inf, sum and count, as prom-client lists a series. */
  #samples({ labels, buckets, sum, count }: HistogramCell): Sample[] {
    const bucket = `${this.name}_bucket`;
    let below = 0;
    const samples: Sample[] = this.#bounds.map((le, i) => {
      below += buckets[i] as number;
      return { labels: { le, ...labels }, value: below, metricName: bucket };
    });
    samples.push(
      { labels: { le: '+Inf', ...labels }, value: count, metricName: bucket },
      { labels: { ...labels }, value: sum, metricName: `${this.name}_sum` },
      { labels: { ...labels }, value: count, metricName: `${this.name}_count` },
    );
    return samples;
  }
}
