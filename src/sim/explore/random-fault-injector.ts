/**
 * Injects random faults into a running cluster at drawn slots: at each slot's time it asks every
 * fault of the catalogue what it can hit in the cluster as it is then (the nodes still up, the
 * disks attached), picks one of the faults that can hit something, then one of its targets, with
 * the exploration's own random stream; injects it and, for a lasting fault, heals it later. What it
 * did is kept as a concrete schedule, which replays the same run through the scenario runner's
 * `extraFaults`.
 */

import type { Cluster } from "../../cmd/cluster.ts";
import type { Timer } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Rng } from "../../runtime/rng.ts";
import type { FaultDefinition, FaultParams } from "../faults/fault.ts";
import type { ScheduledFault } from "./fault-schedule.ts";
import type { FaultSlot } from "./fault-slots.ts";

/** A slot that injected nothing, and why (nothing to hit, or the fault refused). */
interface SkippedSlot {
  readonly atMs: number;
  readonly reason: string;
}

interface Choice {
  readonly fault: FaultDefinition;
  readonly params: FaultParams;
}

export class RandomFaultInjector {
  private readonly scheduled: ScheduledFault[] = [];
  private readonly skippedSlots: SkippedSlot[] = [];
  private readonly timers: Timer[] = [];
  private startMs = 0;

  constructor(
    private readonly slots: readonly FaultSlot[],
    private readonly catalogue: readonly FaultDefinition[],
    private readonly rng: Rng,
  ) {}

  /** Arms a timer per slot; `startMs` is the cluster time the run's time 0 stands for. */
  start(cluster: Cluster, startMs: number): void {
    this.startMs = startMs;
    for (const slot of this.slots) {
      const delayMs = Math.max(0, startMs + slot.atMs - cluster.clock.now());
      this.timers.push(cluster.clock.setTimer(delayMs, () => void this.injectAt(cluster, slot)));
    }
  }

  stop(): void {
    for (const timer of this.timers.splice(0)) timer.cancel();
  }

  /** The faults injected so far, in the order they were. */
  schedule(): readonly ScheduledFault[] {
    return this.scheduled;
  }

  skipped(): readonly SkippedSlot[] {
    return this.skippedSlots;
  }

  private async injectAt(cluster: Cluster, slot: FaultSlot): Promise<void> {
    // A run stopped early (an invariant violated) drains its timers while the cluster shuts down.
    if (cluster.isStopping) return;
    const skip = (reason: string): void => {
      this.skippedSlots.push({ atMs: slot.atMs, reason });
    };
    let choice: Choice | undefined;
    try {
      choice = await this.choose(cluster);
    } catch (error) {
      return skip(`listing the faults' targets failed: ${errorMessage(error)}`);
    }
    if (choice === undefined) return skip("no fault of the catalogue can hit anything in the cluster now");
    try {
      await choice.fault.inject(cluster, choice.params);
    } catch (error) {
      return skip(`injecting ${choice.fault.name} failed: ${errorMessage(error)}`);
    }
    const heals = slot.healAfterMs !== undefined && choice.fault.heal !== undefined;
    const healAtMs = heals ? slot.atMs + (slot.healAfterMs ?? 0) : undefined;
    this.scheduled.push({
      atMs: slot.atMs,
      fault: choice.fault.name,
      params: choice.params,
      ...(healAtMs === undefined ? {} : { healAtMs }),
    });
    if (healAtMs !== undefined) this.armHeal(cluster, choice, healAtMs, skip);
  }

  /** A fault that can hit something now, and one of its targets; undefined when none can. */
  private async choose(cluster: Cluster): Promise<Choice | undefined> {
    const candidates: Array<{ fault: FaultDefinition; targets: FaultParams[] }> = [];
    for (const fault of this.catalogue) {
      const targets = await fault.targets(cluster);
      if (targets.length > 0) candidates.push({ fault, targets });
    }
    if (candidates.length === 0) return undefined;
    const { fault, targets } = this.rng.pick(candidates);
    return { fault, params: this.rng.pick(targets) };
  }

  private armHeal(cluster: Cluster, choice: Choice, healAtMs: number, skip: (reason: string) => void): void {
    const heal = choice.fault.heal;
    if (heal === undefined) return;
    const delayMs = Math.max(0, this.startMs + healAtMs - cluster.clock.now());
    this.timers.push(
      cluster.clock.setTimer(delayMs, () => {
        if (cluster.isStopping) return;
        heal.call(choice.fault, cluster, choice.params).catch((error: unknown) => {
          skip(`healing ${choice.fault.name} failed: ${errorMessage(error)}`);
        });
      }),
    );
  }
}
