/**
 * kube-scheduler's PriorityQueue (scheduling_queue.go), reduced to what placement needs:
 *
 * - activeQ: pods ready to be tried, in arrival order (pod priority is not modelled);
 * - backoffQ: pods waiting out their backoff — 1 s after the first failed attempt, doubling per
 *   attempt up to 10 s — moved to activeQ by the flush that runs every second;
 * - unschedulable pods: tried again only when a cluster event could help them (a node added or
 *   changed, a class added or changed; `moveAllToActiveOrBackoff`; a claim or volume added or changed
 *   wakes only the pods it can help, Kubernetes' queueing hints; `movePodsToActiveOrBackoff`), or at the
 *   latest after 5 minutes by the leftover flush that runs every 30 s.
 *
 * A pod whose attempt failed while a cluster event arrived during that attempt goes to backoffQ, not
 * to the unschedulable pods, so the event is not lost (the queue's moveRequestCycle). An attempt
 * that failed with an error (not "fits nowhere") always backs off.
 *
 * The flushes are modelled as timers at the flush ticks they would hit, so an idle queue schedules
 * nothing and the timing is the periodic loop's.
 */
import type { Clock, Timer } from "../../runtime/clock.ts";

type QueueLocation = "active" | "backoff" | "unschedulable" | "inFlight";

export interface QueuedPod {
  /** `namespace/name`. */
  readonly key: string;
  /** Scheduling attempts so far (counted when popped). */
  attempts: number;
  /** When the pod last entered a queue: backoff is measured from here. */
  timestampMs: number;
  /** The scheduling cycle of its last attempt. */
  cycle: number;
  /** Arrival order in the queue: pods woken together move in this order. */
  readonly arrival: number;
  location: QueueLocation;
  /** Pending backoff or leftover flush for this pod. */
  timer?: Timer;
}

interface SchedulingQueueOptions {
  clock: Clock;
  initialBackoffMs: number;
  maxBackoffMs: number;
  backoffFlushPeriodMs: number;
  unschedulableFlushPeriodMs: number;
  maxInUnschedulableMs: number;
  /** Bound on pods known to the queue; adding beyond it throws. */
  maxPods: number;
}

export class SchedulingQueue {
  private readonly options: SchedulingQueueOptions;
  private readonly startMs: number;
  private readonly pods = new Map<string, QueuedPod>();
  private active: QueuedPod[] = [];
  private activeHead = 0;
  private readonly waiters: Array<(pod: QueuedPod | undefined) => void> = [];
  private schedulingCycle = 0;
  private moveRequestCycle = -1;
  private arrivals = 0;
  private closed = false;

  constructor(options: SchedulingQueueOptions) {
    this.options = options;
    this.startMs = options.clock.now();
  }

  /** A new pending pod: queued for an attempt unless the queue already knows it. */
  add(key: string): void {
    if (this.closed || this.pods.has(key)) return;
    if (this.pods.size >= this.options.maxPods) {
      throw new RangeError(`scheduling queue: more than ${this.options.maxPods} pending pods; raise maxPods`);
    }
    const pod: QueuedPod = {
      key,
      attempts: 0,
      timestampMs: this.now(),
      cycle: 0,
      location: "active",
      arrival: this.arrivals++,
    };
    this.pods.set(key, pod);
    this.pushActive(pod);
  }

  /** The pod's spec or labels changed: an unschedulable pod may fit now, so it is tried again. */
  updated(key: string): void {
    const pod = this.pods.get(key);
    if (pod?.location === "unschedulable") this.moveToActiveOrBackoff(pod);
  }

  /** The pod is gone, or no longer waits for a node: forget it wherever it is. */
  delete(key: string): void {
    const pod = this.pods.get(key);
    if (pod === undefined) return;
    pod.timer?.cancel();
    this.pods.delete(key);
  }

  has(key: string): boolean {
    return this.pods.has(key);
  }

  location(key: string): QueueLocation | undefined {
    return this.pods.get(key)?.location;
  }

  /** The next pod to try, waiting for one; undefined once closed. The pod is in flight until settled. */
  pop(): Promise<QueuedPod | undefined> {
    const next = this.takeActive();
    if (next !== undefined) return Promise.resolve(this.startAttempt(next));
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The attempt placed the pod (or it needs no placement any more). */
  done(pod: QueuedPod): void {
    if (this.pods.get(pod.key) === pod) this.pods.delete(pod.key);
  }

  /** AddUnschedulableIfNotPresent: the attempt failed; `error` means it failed for another reason than fit. */
  requeueFailed(pod: QueuedPod, error: boolean): void {
    if (this.closed || this.pods.get(pod.key) !== pod || pod.location !== "inFlight") return;
    pod.timestampMs = this.now();
    if (error || this.moveRequestCycle >= pod.cycle) this.toBackoff(pod);
    else this.toUnschedulable(pod);
  }

  /** A cluster event that could make unschedulable pods fit: every one of them is tried again. */
  moveAllToActiveOrBackoff(): void {
    this.moveRequestCycle = this.schedulingCycle;
    for (const pod of this.pods.values()) {
      if (pod.location === "unschedulable") this.moveToActiveOrBackoff(pod);
    }
  }

  /**
   * A cluster event that can help only the pods in `keys` (a queueing hint): those that wait as
   * unschedulable are tried again, in arrival order as `moveAllToActiveOrBackoff` would; an attempt
   * in flight still backs off instead of waiting, as after any event.
   */
  movePodsToActiveOrBackoff(keys: Iterable<string>): void {
    this.moveRequestCycle = this.schedulingCycle;
    const woken = new Set<QueuedPod>();
    for (const key of keys) {
      const pod = this.pods.get(key);
      if (pod?.location === "unschedulable") woken.add(pod);
    }
    const inArrivalOrder = [...woken].sort((a, b) => a.arrival - b.arrival);
    for (const pod of inArrivalOrder) this.moveToActiveOrBackoff(pod);
  }

  /** Pods by location, for tests and diagnostics. */
  counts(): Record<QueueLocation, number> {
    const counts: Record<QueueLocation, number> = { active: 0, backoff: 0, unschedulable: 0, inFlight: 0 };
    for (const pod of this.pods.values()) counts[pod.location]++;
    return counts;
  }

  /** Stops the queue: waiting and later pops get undefined, timers are cancelled. */
  close(): void {
    this.closed = true;
    for (const pod of this.pods.values()) pod.timer?.cancel();
    for (const resolve of this.waiters.splice(0)) resolve(undefined);
  }

  /** calculateBackoffDuration: initial × 2^(attempts−1), capped. */
  backoffDurationMs(attempts: number): number {
    let duration = this.options.initialBackoffMs;
    for (let attempt = 1; attempt < attempts; attempt++) {
      duration *= 2;
      if (duration > this.options.maxBackoffMs) return this.options.maxBackoffMs;
    }
    return duration;
  }

  private now(): number {
    return this.options.clock.now();
  }

  private backoffExpiryMs(pod: QueuedPod): number {
    return pod.timestampMs + this.backoffDurationMs(pod.attempts);
  }

  private moveToActiveOrBackoff(pod: QueuedPod): void {
    pod.timer?.cancel();
    pod.timer = undefined;
    if (this.backoffExpiryMs(pod) > this.now()) this.toBackoff(pod);
    else this.pushActive(pod);
  }

  /** Waits for the first backoff flush at or after the backoff expiry. */
  private toBackoff(pod: QueuedPod): void {
    pod.location = "backoff";
    const flushAtMs = this.tickAtOrAfter(this.backoffExpiryMs(pod), this.options.backoffFlushPeriodMs);
    this.schedule(pod, flushAtMs);
  }

  /** Waits for an event, or the first leftover flush more than maxInUnschedulableMs from now. */
  private toUnschedulable(pod: QueuedPod): void {
    pod.location = "unschedulable";
    const period = this.options.unschedulableFlushPeriodMs;
    // The leftover flush moves pods that have waited strictly longer than the limit.
    const flushAtMs = this.tickAtOrAfter(this.now() + this.options.maxInUnschedulableMs + 1, period);
    this.schedule(pod, flushAtMs);
  }

  private schedule(pod: QueuedPod, atMs: number): void {
    pod.timer?.cancel();
    pod.timer = this.options.clock.setTimer(Math.max(0, atMs - this.now()), () => {
      pod.timer = undefined;
      if (this.pods.get(pod.key) === pod && (pod.location === "backoff" || pod.location === "unschedulable")) {
        this.pushActive(pod);
      }
    });
  }

  /** The first tick of a loop started with the queue, with period `periodMs`, at or after `timeMs`. */
  private tickAtOrAfter(timeMs: number, periodMs: number): number {
    const ticks = Math.ceil((timeMs - this.startMs) / periodMs);
    return this.startMs + Math.max(0, ticks) * periodMs;
  }

  private pushActive(pod: QueuedPod): void {
    pod.location = "active";
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      waiter(this.startAttempt(pod));
      return;
    }
    this.active.push(pod);
  }

  /** The next active pod still known to the queue; entries of deleted or moved pods are skipped. */
  private takeActive(): QueuedPod | undefined {
    while (this.activeHead < this.active.length) {
      const pod = this.active[this.activeHead] as QueuedPod;
      this.activeHead++;
      if (this.activeHead * 2 >= this.active.length) {
        this.active = this.active.slice(this.activeHead);
        this.activeHead = 0;
      }
      if (this.pods.get(pod.key) === pod && pod.location === "active") return pod;
    }
    return undefined;
  }

  private startAttempt(pod: QueuedPod): QueuedPod {
    this.schedulingCycle++;
    pod.location = "inFlight";
    pod.attempts++;
    pod.cycle = this.schedulingCycle;
    return pod;
  }
}
