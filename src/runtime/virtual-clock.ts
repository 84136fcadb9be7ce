/**
 * Virtual time for the simulator and for tests. Nothing happens until a run method is called; then
 * tasks run one at a time in order of (due time, sequence number), time jumps straight to the next
 * due task, and between two tasks every promise chain the previous task started is allowed to settle.
 * The same program and inputs therefore produce the same sequence of task executions, run after run.
 * A quiet timer's callback that says it started nothing (clock.ts, QuietTimerCallback) is followed by
 * the next task at once: the turn that lets chains settle would have found none.
 *
 * A setTimer callback that throws makes the run method reject with that error (the virtual form of an
 * uncaught exception); an `every` pass that throws is reported to `onPassError` and the loop goes on.
 */
import { afterIoPending, afterIoSettled } from "./after-io.ts";
import type { Clock, QuietTimerCallback, Timer } from "./clock.ts";
import { type PassErrorHandler, reportPassErrorToStderr, startEveryLoop } from "./every.ts";
import { realIoMayBePending } from "./real-io.ts";
import { type ScheduledTask, TaskQueue } from "./task-queue.ts";

/** 2026-01-01T00:00:00Z: every simulation starts at the same instant unless told otherwise. */
export const defaultVirtualEpochMs = Date.UTC(2026, 0, 1, 0, 0, 0);
/** runUntilIdle's default bound: enough for any finite workload, small enough to stop a loop quickly. */
const defaultMaxTasksUntilIdle = 100_000;
/** More tasks than this at one virtual instant means zero-delay rescheduling that never lets time move. */
const defaultMaxTasksAtOneInstant = 1_000_000;
/** Upper bound on live timers; a simulation of 150,000 pods stays far below it. */
const defaultMaxPendingTimers = 10_000_000;
/**
 * Event-loop turns allowed for work started by one task to settle. One turn drains every promise
 * chain; further turns are taken only for deferred work (after-io.ts) and, while real I/O may answer,
 * while the previous turn scheduled new timers. This caps them so real I/O that never goes quiet
 * cannot stall virtual time.
 */
const maxSettleTurnsPerTask = 100;

interface VirtualClockOptions {
  /** Virtual time at construction, in epoch milliseconds. */
  startTimeMs?: number;
  /** Receives errors thrown by `every` passes; defaults to a line on stderr. */
  onPassError?: PassErrorHandler;
  maxPendingTimers?: number;
  maxTasksAtOneInstant?: number;
  /**
   * Checks the quiet-timer contract (clock.ts): after a quiet callback that reports no asynchronous
   * work, take the event-loop turn anyway and fail the run if that turn scheduled a timer or left
   * deferred work pending — the callback did start something, and skipping its turn would have
   * reordered the timeline. For tests; it costs the turns quiet timers save.
   */
  checkQuietTimers?: boolean;
}

interface RunOptions {
  /** Stop with an error after this many tasks (runUntilIdle defaults to `defaultMaxTasksUntilIdle`). */
  maxTasks?: number;
}

function nextEventLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A scheduled task that is also its own Timer handle: one object per timer instead of three (task,
 * handle and the handle's closure), which matters with a timer per stored Event.
 */
class VirtualTimer implements ScheduledTask, Timer {
  readonly dueMs: number;
  readonly sequence: number;
  readonly run: () => void;
  cancelled = false;
  private readonly queue: TaskQueue<VirtualTimer>;

  constructor(dueMs: number, sequence: number, run: () => void, queue: TaskQueue<VirtualTimer>) {
    this.dueMs = dueMs;
    this.sequence = sequence;
    this.run = run;
    this.queue = queue;
  }

  cancel(): void {
    this.queue.cancel(this);
  }

  /** Runs the callback; returns whether it may have started asynchronous work (any callback may). */
  runTask(): boolean {
    this.run();
    return true;
  }
}

/** A quiet timer: its callback says whether it started asynchronous work (a subclass, so others carry no flag). */
class QuietVirtualTimer extends VirtualTimer {
  declare readonly run: QuietTimerCallback;

  override runTask(): boolean {
    return this.run();
  }
}

/** VirtualTimer or QuietVirtualTimer: what `schedule` makes. */
type VirtualTimerKind = new (
  dueMs: number,
  sequence: number,
  run: () => void,
  queue: TaskQueue<VirtualTimer>,
) => VirtualTimer;

function validateDelayMs(method: string, delayMs: number): void {
  if (!Number.isFinite(delayMs) || delayMs < 0) {
    throw new RangeError(`${method}: delayMs must be a finite number >= 0, got ${delayMs}`);
  }
}

export class VirtualClock implements Clock {
  private nowMs: number;
  private sequence = 0;
  private running = false;
  private tasksAtCurrentInstant = 0;
  private tasksRun = 0;
  private eventLoopTurns = 0;
  private readonly tasks: TaskQueue<VirtualTimer>;
  /**
   * realIoMayBePending()'s answer since the last event-loop turn; undefined when not asked since.
   * Only a turn (an answer arriving, a handle closing) or a task that starts work can change it, and
   * a quiet task that reports no asynchronous work starts none, so the answer stands for a run of
   * such tasks.
   */
  private realIoMayBePendingAnswer: boolean | undefined;
  private readonly onPassError: PassErrorHandler;
  private readonly maxTasksAtOneInstant: number;
  private readonly checkQuietTimers: boolean;

  constructor(options: VirtualClockOptions = {}) {
    this.nowMs = options.startTimeMs ?? defaultVirtualEpochMs;
    if (!Number.isFinite(this.nowMs)) {
      throw new RangeError(`VirtualClock: startTimeMs must be a finite number, got ${this.nowMs}`);
    }
    this.tasks = new TaskQueue<VirtualTimer>(options.maxPendingTimers ?? defaultMaxPendingTimers);
    this.onPassError = options.onPassError ?? reportPassErrorToStderr;
    this.maxTasksAtOneInstant = options.maxTasksAtOneInstant ?? defaultMaxTasksAtOneInstant;
    this.checkQuietTimers = options.checkQuietTimers ?? false;
  }

  now(): number {
    return this.nowMs;
  }

  sleep(delayMs: number): Promise<void> {
    validateDelayMs("sleep", delayMs);
    return new Promise((resolve) => this.setTimer(delayMs, resolve));
  }

  setTimer(delayMs: number, fn: () => void): Timer {
    return this.schedule("setTimer", delayMs, VirtualTimer, fn);
  }

  setQuietTimer(delayMs: number, fn: QuietTimerCallback): Timer {
    return this.schedule("setQuietTimer", delayMs, QuietVirtualTimer, fn);
  }

  private schedule(method: string, delayMs: number, kind: VirtualTimerKind, fn: () => void): Timer {
    validateDelayMs(method, delayMs);
    const task = new kind(this.nowMs + delayMs, this.sequence++, fn, this.tasks);
    this.tasks.push(task);
    return task;
  }

  every(periodMs: number, fn: () => void | Promise<void>): Timer {
    return startEveryLoop((delayMs, pass) => this.setTimer(delayMs, pass), periodMs, fn, this.onPassError);
  }

  /** Number of timers scheduled and not yet run or cancelled. */
  pendingTimers(): number {
    return this.tasks.size;
  }

  /** Tasks run and event-loop turns taken so far: what a benchmark counts (turns are what quiet timers save). */
  workDone(): { tasks: number; turns: number } {
    return { tasks: this.tasksRun, turns: this.eventLoopTurns };
  }

  /** When the earliest pending timer is due, or undefined when none is pending. */
  nextDueTime(): number | undefined {
    return this.tasks.peek()?.dueMs;
  }

  /**
   * Runs tasks until no timer remains, jumping time forward as needed. A periodic loop never goes
   * idle, so this stops with an error after `maxTasks`; use advanceBy for a bounded span of time.
   * Resolves to the number of tasks run.
   */
  runUntilIdle(options: RunOptions = {}): Promise<number> {
    return this.runTasks("runUntilIdle", Number.POSITIVE_INFINITY, options.maxTasks ?? defaultMaxTasksUntilIdle);
  }

  /** Runs every task due up to now + `durationMs`, then leaves time at exactly now + `durationMs`. */
  async advanceBy(durationMs: number, options: RunOptions = {}): Promise<number> {
    validateDelayMs("advanceBy", durationMs);
    return this.advanceTo(this.nowMs + durationMs, options);
  }

  /** Same as advanceBy: lets `durationMs` of virtual time pass with everything it schedules. */
  runFor(durationMs: number, options: RunOptions = {}): Promise<number> {
    return this.advanceBy(durationMs, options);
  }

  /** Runs every task due up to `timeMs` (epoch milliseconds, not in the past), then sets now to it. */
  async advanceTo(timeMs: number, options: RunOptions = {}): Promise<number> {
    if (!Number.isFinite(timeMs) || timeMs < this.nowMs) {
      throw new RangeError(`advanceTo: timeMs must be finite and not before now (${this.nowMs}), got ${timeMs}`);
    }
    const executed = await this.runTasks("advanceTo", timeMs, options.maxTasks ?? Number.POSITIVE_INFINITY);
    this.moveTimeTo(timeMs);
    return executed;
  }

  private async runTasks(method: string, limitMs: number, maxTasks: number): Promise<number> {
    if (this.running) {
      throw new Error(`${method}: the VirtualClock is already running tasks; await the earlier run call first`);
    }
    this.running = true;
    try {
      return await this.runDueTasks(method, limitMs, maxTasks);
    } finally {
      this.running = false;
    }
  }

  private async runDueTasks(method: string, limitMs: number, maxTasks: number): Promise<number> {
    let executed = 0;
    await this.settle();
    for (;;) {
      const next = this.tasks.peek();
      if (next === undefined || next.dueMs > limitMs) return executed;
      if (executed >= maxTasks) throw this.tooManyTasksError(method, maxTasks);
      this.tasks.pop();
      this.moveTimeTo(next.dueMs);
      this.countTaskAtCurrentInstant();
      executed++;
      this.tasksRun++;
      if (next.runTask() || this.turnStillOwed()) await this.settle();
      else if (this.checkQuietTimers) await this.checkQuietTurn(next);
    }
  }

  /**
   * Takes the turn a quiet task said it did not need, and throws if the task started something after
   * all: a timer set during the turn (a promise chain that went on), or deferred work left pending.
   */
  private async checkQuietTurn(task: VirtualTimer): Promise<void> {
    const sequenceBefore = this.sequence;
    this.realIoMayBePendingAnswer = undefined;
    await nextEventLoopTurn();
    this.eventLoopTurns++;
    const scheduled = this.sequence !== sequenceBefore;
    const deferred = afterIoPending();
    if (!scheduled && !deferred) return;
    const found = scheduled ? "scheduled a timer" : "left after-io work pending";
    throw new Error(
      `VirtualClock (checkQuietTimers): the quiet timer due at ${new Date(task.dueMs).toISOString()} ` +
        `returned false (started nothing asynchronous), but the event-loop turn after it ${found}; ` +
        "a quiet callback that settles a promise or starts work must return true",
    );
  }

  /**
   * After a task that started no asynchronous work: whether the event-loop turn is still owed, because
   * something other than the task's own work waits for it — deferred work (after-io.ts), or real I/O
   * whose answers only a turn lets in (so under real I/O every task still gets its turn).
   */
  private turnStillOwed(): boolean {
    if (afterIoPending()) return true;
    this.realIoMayBePendingAnswer ??= realIoMayBePending();
    return this.realIoMayBePendingAnswer;
  }

  private moveTimeTo(timeMs: number): void {
    if (timeMs === this.nowMs) return;
    this.nowMs = timeMs;
    this.tasksAtCurrentInstant = 0;
  }

  private countTaskAtCurrentInstant(): void {
    this.tasksAtCurrentInstant++;
    if (this.tasksAtCurrentInstant > this.maxTasksAtOneInstant) {
      throw new Error(
        `VirtualClock: more than ${this.maxTasksAtOneInstant} tasks ran at ${new Date(this.nowMs).toISOString()} ` +
          "without time moving; something reschedules itself with zero delay (check every(0, …) loops and sleep(0) retries)",
      );
    }
  }

  private tooManyTasksError(method: string, maxTasks: number): Error {
    const nextDue = this.nextDueTime();
    const nextDueText = nextDue === undefined ? "none" : new Date(nextDue).toISOString();
    return new Error(
      `${method}: stopped after running ${maxTasks} tasks with ${this.pendingTimers()} timers still pending ` +
        `(next due ${nextDueText}); a periodic loop never goes idle, so cancel it, run a bounded span with ` +
        "advanceBy/runFor, or pass a larger maxTasks",
    );
  }

  /**
   * Lets promise chains started by the last task finish, so whatever they schedule is seen in order.
   * One event-loop turn is enough for a purely in-process program: after it no promise chain is left,
   * and nothing outside can start one, however many timers the turn scheduled. A chain waiting on
   * deferred work (a store's group commit, after-io.ts) gets further turns, and so does one waiting on
   * real I/O (a gRPC call, an HTTP request; real-io.ts) for as long as each turn schedules new timers.
   */
  private async settle(): Promise<void> {
    for (let turn = 0; turn < maxSettleTurnsPerTask; turn++) {
      const sequenceBefore = this.sequence;
      this.realIoMayBePendingAnswer = undefined;
      await nextEventLoopTurn();
      this.eventLoopTurns++;
      if (afterIoPending()) {
        // Deferred work (a commit's fsync) is waited for, not spun on: a task's writes are
        // acknowledged before the next task runs. The wait takes at least one turn: count it.
        await afterIoSettled();
        this.eventLoopTurns++;
        continue;
      }
      if (this.sequence === sequenceBefore) return;
      this.realIoMayBePendingAnswer = realIoMayBePending();
      if (!this.realIoMayBePendingAnswer) return;
    }
  }
}
