/**
 * client-go's work queue metrics, as every Kubernetes controller exposes them (label `name`, the
 * queue's name): depth, adds, retries, how long a key waited to be handed out and how long its
 * processing took. Times come from the queue's Clock, so a simulation reports the same durations
 * run after run.
 */
import type { Counter, Gauge, Histogram } from "prom-client";
import { msPerSecond } from "./duration.ts";
import type { Metrics } from "./metrics.ts";

/** client-go's buckets for both durations: 10 ns to 1,000 s, ×10 each (ExponentialBuckets(10e-9, 10, 12)). */
const durationBucketsSeconds = Array.from({ length: 12 }, (_, index) => 10e-9 * 10 ** index);

export class WorkQueueMetrics<K> {
  private readonly labels: { name: string };
  private readonly depth: Gauge;
  private readonly adds: Counter;
  private readonly retries: Counter;
  private readonly queueDuration: Histogram;
  private readonly workDuration: Histogram;
  private readonly addedAtMs = new Map<K, number>();
  private readonly startedAtMs = new Map<K, number>();

  constructor(metrics: Metrics, name: string) {
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
