/**
 * prom-client's Histogram with each label set's bucket counts kept small. prom-client keeps them in
 * an object keyed by upper bound; a bound that is a whole number is an array index to V8, so the
 * counts of buckets up to 600 s (storage_operation_duration_seconds) sat in a 600-slot array: 7 KB
 * per label set, and every node's kubelet has several. Each new label set's counts are moved to an
 * object V8 keeps as a dictionary (half a kilobyte); prom-client reads and exposes them as before.
 */
import { Histogram, type HistogramConfiguration } from "prom-client";

type BucketCounts = Record<string, number>;

/** prom-client's record of one label set (lib/histogram.js `createBaseValues`). */
interface LabelSetValues {
  bucketValues: BucketCounts;
}

/**
 * An index no bucket uses: an object that once had it keeps its indices in a dictionary, which V8
 * would not choose for a few small indices on its own.
 */
const sparseIndex = 2 ** 30;

function dictionaryCopy(counts: BucketCounts): BucketCounts {
  const copy: BucketCounts = {};
  copy[sparseIndex] = 0;
  delete copy[sparseIndex];
  for (const bound of Object.keys(counts)) copy[bound] = counts[bound] as number;
  return copy;
}

export class CompactHistogram<T extends string = string> extends Histogram<T> {
  private readonly compacted = new WeakSet<BucketCounts>();

  constructor(configuration: HistogramConfiguration<T>) {
    super(configuration);
    // prom-client sets `observe` on the instance (with or without exemplars): wrap what it chose.
    const observe = this.observe as (...args: unknown[]) => void;
    const compacting = (...args: unknown[]): void => {
      observe.apply(this, args);
      this.compactNewLabelSets();
    };
    Object.assign(this, { observe: compacting });
  }

  private compactNewLabelSets(): void {
    const labelSets = (this as unknown as { hashMap: Record<string, LabelSetValues> }).hashMap;
    for (const values of Object.values(labelSets)) {
      if (this.compacted.has(values.bucketValues)) continue;
      values.bucketValues = dictionaryCopy(values.bucketValues);
      this.compacted.add(values.bucketValues);
    }
  }
}
