/**
 * Prometheus metrics (prom-client), one registry per component instance: each simulated cluster
 * and each node agent has its own, so two clusters in one process (tests, `kvol sim explore`)
 * never add to each other's counters. Durations are observed from the Clock by the caller
 * (never prom-client's timers, which read the wall clock), so a simulation's metrics are the same
 * run after run. Components ask for a metric by name; asking twice returns the same one.
 */
import { Counter, Gauge, type Histogram, Registry } from "prom-client";
import { CompactHistogram } from "./compact-histogram.ts";

export type LabelValues = Readonly<Record<string, string>>;

interface MetricSpec {
  name: string;
  help: string;
  labelNames?: readonly string[];
}

export class Metrics {
  private readonly registry = new Registry();
  private readonly metrics = new Map<string, Counter | Gauge | Histogram>();

  /** A counter; `collect` (when given) runs at each scrape, to add counts the component kept itself. */
  counter(spec: MetricSpec & { collect?: (counter: Counter) => void }): Counter {
    const collect = spec.collect;
    return this.getOrAdd(
      spec.name,
      Counter,
      () =>
        new Counter({
          ...this.base(spec),
          ...(collect === undefined
            ? {}
            : {
                collect(this: Counter) {
                  collect(this);
                },
              }),
        }),
    );
  }

  /** A gauge; `collect` (when given) sets its values at each scrape from the component's state. */
  gauge(spec: MetricSpec & { collect?: (gauge: Gauge) => void | Promise<void> }): Gauge {
    const collect = spec.collect;
    return this.getOrAdd(
      spec.name,
      Gauge,
      () =>
        new Gauge({
          ...this.base(spec),
          ...(collect === undefined
            ? {}
            : {
                collect(this: Gauge) {
                  return collect(this);
                },
              }),
        }),
    );
  }

  /** A histogram; `collect` (when given) runs at each scrape, to write observations the component counted itself. */
  histogram(spec: MetricSpec & { bucketsSeconds: readonly number[]; collect?: () => void }): Histogram {
    const collect = spec.collect;
    return this.getOrAdd(
      spec.name,
      CompactHistogram,
      () =>
        new CompactHistogram({
          ...this.base(spec),
          buckets: [...spec.bucketsSeconds],
          ...(collect === undefined ? {} : { collect: () => collect() }),
        }),
    );
  }

  /** The text exposition format Prometheus scrapes. */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private base(spec: MetricSpec): { name: string; help: string; labelNames: string[]; registers: Registry[] } {
    return { name: spec.name, help: spec.help, labelNames: [...(spec.labelNames ?? [])], registers: [this.registry] };
  }

  private getOrAdd<T extends Counter | Gauge | Histogram>(
    name: string,
    type: abstract new (...args: never[]) => T,
    make: () => T,
  ): T {
    const existing = this.metrics.get(name);
    if (existing !== undefined) {
      if (!(existing instanceof type)) throw new Error(`metric ${name} is already registered as another type`);
      return existing;
    }
    const made = make();
    this.metrics.set(name, made);
    return made;
  }
}
