/**
 * client-go's work queue metrics, as every Kubernetes controller exposes them (component-base's
 * workqueue provider, label `name`, the queue's name): depth, adds, retries, how long a key waited
 * to be handed out and how long its processing took, and — read at each scrape — the seconds of
 * work in progress (unfinished_work_seconds) and of the longest-running one
 * (longest_running_processor_seconds). Times come from the queue's Clock, so a simulation reports
 * the same durations run after run.
 */
import type { Counter, Gauge } from "prom-client";
import { CountedHistogramSeries } from "./counted-histogram-series.ts";
import { msPerSecond } from "./duration.ts";
import type { Metrics } from "./metrics.ts";

/** component-base's buckets for both durations: 1 µs to 1,000 s, ×10 each (ExponentialBuckets(10e-7, 10, 10)). */
const durationBucketsSeconds = [1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 100, 1000] as const;

/** The queues of each registry, read at each scrape by the gauges and counter below (one metric serves them all). */
const queuesByRegistry = new WeakMap<Metrics, Set<WorkQueueMetrics<unknown>>>();

/**
 * The metrics read from the queues at each scrape. Depth and adds change at every key a queue
 * takes (several per pod in a simulation): a labelled prom-client update hashes its labels each
 * time, so the queue counts them in plain numbers and the scrape reports them — the same values a
 * scrape saw when each change was written through.
 */
function scrapedQueues(metrics: Metrics): Set<WorkQueueMetrics<unknown>> {
  let queues = queuesByRegistry.get(metrics);
  if (queues !== undefined) return queues;
  const registered = new Set<WorkQueueMetrics<unknown>>();
  queues = registered;
  queuesByRegistry.set(metrics, registered);
  const labelNames = ["name"];
  metrics.gauge({
    name: "workqueue_depth",
    help: "Current depth of workqueue",
    labelNames,
    collect: (gauge) => eachQueue(registered, gauge, (queue) => queue.depth()),
  });
  metrics.counter({
    name: "workqueue_adds_total",
    help: "Total number of adds handled by workqueue",
    labelNames,
    collect: (counter) => {
      for (const queue of registered) {
        const adds = queue.takeUncountedAdds();
        if (adds > 0) counter.inc(queue.labels, adds);
      }
    },
  });
  return registered;
}

/** The gauges of work in progress, registered after the queue's other metrics (the exposition's order). */
function addInProgressGauges(metrics: Metrics, registered: Set<WorkQueueMetrics<unknown>>): void {
  const labelNames = ["name"];
  metrics.gauge({
    name: "workqueue_unfinished_work_seconds",
    help: "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
    labelNames,
    collect: (gauge) => eachQueue(registered, gauge, (queue) => queue.unfinishedWorkSeconds()),
  });
  metrics.gauge({
    name: "workqueue_longest_running_processor_seconds",
    help: "How many seconds has the longest running processor for workqueue been running.",
    labelNames,
    collect: (gauge) => eachQueue(registered, gauge, (queue) => queue.longestRunningProcessorSeconds()),
  });
}

function eachQueue(
  queues: Set<WorkQueueMetrics<unknown>>,
  gauge: Gauge,
  value: (queue: WorkQueueMetrics<unknown>) => number,
): void {
  for (const queue of queues) gauge.set(queue.labels, value(queue));
}

export class WorkQueueMetrics<K> {
  readonly labels: { name: string };
  private readonly retries: Counter;
  private readonly adds: Counter;
  private readonly queueDuration: CountedHistogramSeries;
  private readonly workDuration: CountedHistogramSeries;
  private readonly addedAtMs = new Map<K, number>();
  private readonly startedAtMs = new Map<K, number>();
  /** Keys added and not yet handed out: workqueue_depth. */
  private depthCount = 0;
  /** Adds since the last scrape added them to workqueue_adds_total. */
  private uncountedAdds = 0;
  /**
   * Whether the first add went to the counter: it does at once, so the queue's label set appears
   * in workqueue_adds_total when it did when every add was written through (the exposition's order).
   */
  private addsLabelSetMade = false;

  constructor(
    metrics: Metrics,
    name: string,
    private readonly nowMs: () => number,
  ) {
    this.labels = { name };
    const queues = scrapedQueues(metrics);
    const labelNames = ["name"];
    // The counter scrapedQueues registered, with the collect that reports uncountedAdds.
    this.adds = metrics.counter({ name: "workqueue_adds_total", help: "Total number of adds handled by workqueue" });
    this.retries = metrics.counter({
      name: "workqueue_retries_total",
      help: "Total number of retries handled by workqueue",
      labelNames,
    });
    // Both durations are observed at every key: counted here, each written to prom-client when its histogram is scraped.
    const flushQueueDurations = () => {
      for (const queue of queues) queue.queueDuration.flush();
    };
    const flushWorkDurations = () => {
      for (const queue of queues) queue.workDuration.flush();
    };
    const queueDuration = metrics.histogram({
      name: "workqueue_queue_duration_seconds",
      help: "How long in seconds an item stays in workqueue before being requested.",
      labelNames,
      bucketsSeconds: durationBucketsSeconds,
      collect: flushQueueDurations,
    });
    const workDuration = metrics.histogram({
      name: "workqueue_work_duration_seconds",
      help: "How long in seconds processing an item from workqueue takes.",
      labelNames,
      bucketsSeconds: durationBucketsSeconds,
      collect: flushWorkDurations,
    });
    this.queueDuration = new CountedHistogramSeries(queueDuration, this.labels, durationBucketsSeconds);
    this.workDuration = new CountedHistogramSeries(workDuration, this.labels, durationBucketsSeconds);
    if (queues.size === 0) addInProgressGauges(metrics, queues);
    queues.add(this as WorkQueueMetrics<unknown>);
  }

  /** workqueue_depth: keys added and not yet handed out. */
  depth(): number {
    return this.depthCount;
  }

  /** The adds not yet reported to workqueue_adds_total; reporting them is the caller's. */
  takeUncountedAdds(): number {
    const adds = this.uncountedAdds;
    this.uncountedAdds = 0;
    return adds;
  }

  /** The seconds every key being processed has been at it, summed. */
  unfinishedWorkSeconds(): number {
    const now = this.nowMs();
    let totalMs = 0;
    for (const startedMs of this.startedAtMs.values()) totalMs += now - startedMs;
    return totalMs / msPerSecond;
  }

  /** The seconds the key processed longest has been at it; 0 when none is. */
  longestRunningProcessorSeconds(): number {
    const now = this.nowMs();
    let longestMs = 0;
    for (const startedMs of this.startedAtMs.values()) longestMs = Math.max(longestMs, now - startedMs);
    return longestMs / msPerSecond;
  }

  added(key: K, nowMs: number): void {
    if (this.addsLabelSetMade) this.uncountedAdds++;
    else {
      this.adds.inc(this.labels);
      this.addsLabelSetMade = true;
    }
    this.depthCount++;
    if (!this.addedAtMs.has(key)) this.addedAtMs.set(key, nowMs);
  }

  handedOut(key: K, nowMs: number): void {
    this.depthCount--;
    this.startedAtMs.set(key, nowMs);
    const addedAtMs = this.addedAtMs.get(key);
    if (addedAtMs === undefined) return;
    this.addedAtMs.delete(key);
    this.queueDuration.observe((nowMs - addedAtMs) / msPerSecond);
  }

  finished(key: K, nowMs: number): void {
    const startedAtMs = this.startedAtMs.get(key);
    if (startedAtMs === undefined) return;
    this.startedAtMs.delete(key);
    this.workDuration.observe((nowMs - startedAtMs) / msPerSecond);
  }

  retried(): void {
    this.retries.inc(this.labels);
  }
}
