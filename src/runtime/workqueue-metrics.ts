/**
 * client-go's work queue metrics, as every Kubernetes controller exposes them (component-base's
 * workqueue provider, label `name`, the queue's name): depth, adds, retries, how long a key waited
 * to be handed out and how long its processing took, and — read at each scrape — the seconds of
 * work in progress (unfinished_work_seconds) and of the longest-running one
 * (longest_running_processor_seconds). Times come from the queue's Clock, so a simulation reports
 * the same durations run after run.
 */
import type { Counter, Gauge, Histogram } from "prom-client";
import { msPerSecond } from "./duration.ts";
import type { Metrics } from "./metrics.ts";

/** component-base's buckets for both durations: 1 µs to 1,000 s, ×10 each (ExponentialBuckets(10e-7, 10, 10)). */
const durationBucketsSeconds = [1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 100, 1000] as const;

/** The queues of each registry, read by the in-progress gauges at each scrape (one gauge serves them all). */
const queuesByRegistry = new WeakMap<Metrics, Set<WorkQueueMetrics<unknown>>>();

function inProgressGauges(metrics: Metrics): Set<WorkQueueMetrics<unknown>> {
  let queues = queuesByRegistry.get(metrics);
  if (queues !== undefined) return queues;
  const registered = new Set<WorkQueueMetrics<unknown>>();
  queues = registered;
  queuesByRegistry.set(metrics, registered);
  const each = (gauge: Gauge, value: (queue: WorkQueueMetrics<unknown>) => number) => {
    for (const queue of registered) gauge.set(queue.labels, value(queue));
  };
  metrics.gauge({
    name: "workqueue_unfinished_work_seconds",
    help: "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
    labelNames: ["name"],
    collect: (gauge) => each(gauge, (queue) => queue.unfinishedWorkSeconds()),
  });
  metrics.gauge({
    name: "workqueue_longest_running_processor_seconds",
    help: "How many seconds has the longest running processor for workqueue been running.",
    labelNames: ["name"],
    collect: (gauge) => each(gauge, (queue) => queue.longestRunningProcessorSeconds()),
  });
  return registered;
}

export class WorkQueueMetrics<K> {
  readonly labels: { name: string };
  private readonly depth: Gauge;
  private readonly adds: Counter;
  private readonly retries: Counter;
  private readonly queueDuration: Histogram;
  private readonly workDuration: Histogram;
  private readonly addedAtMs = new Map<K, number>();
  private readonly startedAtMs = new Map<K, number>();

  constructor(
    metrics: Metrics,
    name: string,
    private readonly nowMs: () => number,
  ) {
    this.labels = { name };
    const labelNames = ["name"];
    this.depth = metrics.gauge({ name: "workqueue_depth", help: "Current depth of workqueue", labelNames });
    this.adds = metrics.counter({
      name: "workqueue_adds_total",
      help: "Total number of adds handled by workqueue",
      labelNames,
    });
    this.retries = metrics.counter({
      name: "workqueue_retries_total",
      help: "Total number of retries handled by workqueue",
      labelNames,
    });
    this.queueDuration = metrics.histogram({
      name: "workqueue_queue_duration_seconds",
      help: "How long in seconds an item stays in workqueue before being requested.",
      labelNames,
      bucketsSeconds: durationBucketsSeconds,
    });
    this.workDuration = metrics.histogram({
      name: "workqueue_work_duration_seconds",
      help: "How long in seconds processing an item from workqueue takes.",
      labelNames,
      bucketsSeconds: durationBucketsSeconds,
    });
    this.depth.set(this.labels, 0);
    inProgressGauges(metrics).add(this as WorkQueueMetrics<unknown>);
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
    this.adds.inc(this.labels);
    this.depth.inc(this.labels);
    if (!this.addedAtMs.has(key)) this.addedAtMs.set(key, nowMs);
  }

  handedOut(key: K, nowMs: number): void {
    this.depth.dec(this.labels);
    this.startedAtMs.set(key, nowMs);
    const addedAtMs = this.addedAtMs.get(key);
    if (addedAtMs === undefined) return;
    this.addedAtMs.delete(key);
    this.queueDuration.observe(this.labels, (nowMs - addedAtMs) / msPerSecond);
  }

  finished(key: K, nowMs: number): void {
    const startedAtMs = this.startedAtMs.get(key);
    if (startedAtMs === undefined) return;
    this.startedAtMs.delete(key);
    this.workDuration.observe(this.labels, (nowMs - startedAtMs) / msPerSecond);
  }

  retried(): void {
    this.retries.inc(this.labels);
  }
}
