/**
 * One label set of a prom-client histogram observed at a high rate (a work queue's durations, two
 * per key): the observations are counted in plain numbers and written into prom-client's record of
 * the label set when the histogram is scraped (its `collect`), instead of prom-client hashing the
 * labels and looking the record up at every observe.
 *
 * A scrape shows exactly what observing through prom-client showed: the first observe goes through
 * prom-client, so the label set appears in the histogram when it did before (the exposition keeps
 * its order); the sum is accumulated value by value in the same order, so it is the same float;
 * bucket counts and the count are integers.
 */
import type { Histogram } from "prom-client";

/** prom-client's record of one label set (lib/histogram.js `createBaseValues`). */
interface HistogramRecord {
  labels: object;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}

export class CountedHistogramSeries {
  /** Observations per bucket (not cumulative, as prom-client keeps them), in `boundsSeconds` order. */
  private readonly bucketCounts: number[];
  private sum = 0;
  private count = 0;
  private record: HistogramRecord | undefined;

  constructor(
    private readonly histogram: Histogram,
    /** The label object of every observe of this series (prom-client keeps it in the record). */
    private readonly labels: Readonly<Record<string, string>>,
    /** The histogram's bucket upper bounds, ascending. */
    private readonly boundsSeconds: readonly number[],
  ) {
    this.bucketCounts = boundsSeconds.map(() => 0);
  }

  observe(value: number): void {
    if (this.record === undefined) {
      // prom-client validates the value and creates the label set's record.
      this.histogram.observe(this.labels, value);
      this.record = this.findRecord();
    }
    this.sum += value;
    this.count++;
    // prom-client's findBound: the first bound at or above the value; none above the last bound.
    const bounds = this.boundsSeconds;
    for (let index = 0; index < bounds.length; index++) {
      if (value <= (bounds[index] as number)) {
        this.bucketCounts[index] = (this.bucketCounts[index] as number) + 1;
        break;
      }
    }
  }

  /** Writes the counts into prom-client's record: the histogram's `collect` calls it before a scrape reads. */
  flush(): void {
    const record = this.record;
    if (record === undefined) return;
    record.sum = this.sum;
    record.count = this.count;
    const bounds = this.boundsSeconds;
    for (let index = 0; index < bounds.length; index++) {
      record.bucketValues[bounds[index] as number] = this.bucketCounts[index] as number;
    }
  }

  private findRecord(): HistogramRecord | undefined {
    const records = (this.histogram as unknown as { hashMap: Record<string, HistogramRecord> }).hashMap;
    return Object.values(records).find((record) => record.labels === this.labels);
  }
}
