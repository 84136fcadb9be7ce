/**
 * One pass of the StatefulSet control loop (`stateful_set_control.go` updateStatefulSet): give every
 * ordinal in `[start, start+replicas)` a pod, remove pods beyond it from the highest ordinal down,
 * then replace pods made from an older template from the highest ordinal down.
 *
 * Kubernetes' guarantees, kept here:
 * - An ordinal's slot is taken while a pod of that name exists, terminating or not, so a deleted
 *   pod is replaced under the same name only after its object is gone from the API. A pod stuck
 *   Terminating (its node is dead, its volume will not unmount) is never replaced.
 * - OrderedReady creates pod i only when 0..i-1 are Running and Ready, waits for a terminating
 *   pod before doing anything else, and removes one pod at a time; Parallel does not wait.
 * - Failed or Succeeded pods are deleted, and created again once their object is gone.
 *
 * Simplified: there are no ControllerRevision objects, so a pod is always created from the current
 * template (Kubernetes recreates pods below `status.currentReplicas` at the old revision during a
 * rollout); pods whose labels or volumes were edited by hand are not repaired; the claim retention
 * policy is always Retain (claims are never deleted); `maxUnavailable` of a rolling update is ignored.
 */

import { isNotFound } from "../../api/errors.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import type { Pod, StatefulSet } from "../../api/objects.ts";
import { defaultReplicas } from "./constants.ts";
import { isPodAvailable, isPodRunningAndReady, isPodTerminating } from "./pod-state.ts";
import { newStatefulSetPod, parentAndOrdinal, revisionOfPod, statefulSetRevision } from "./statefulset-identity.ts";
import type { StatefulSetPodControl } from "./statefulset-pod-control.ts";

/** The status counts a pass observed (and changed by its own creations and deletions). */
export interface StatefulSetCounts {
  replicas: number;
  readyReplicas: number;
  availableReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
  currentRevision: string;
  updateRevision: string;
}

interface StatefulSetSyncInput {
  set: StatefulSet;
  /** The pods this set controls (controller reference to its uid), terminating ones included. */
  pods: readonly Pod[];
  control: StatefulSetPodControl;
  recorder: EventRecorder;
  nowMs: number;
}

/** A slot whose pod has not been created yet: never healthy, never equal to an existing pod. */
const notCreated = Symbol("not created");
type Slot = Pod | typeof notCreated;

function isHealthy(slot: Slot): boolean {
  return slot !== notCreated && isPodRunningAndReady(slot) && !isPodTerminating(slot);
}

function isFinished(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === "Failed" || phase === "Succeeded";
}

class StatefulSetPass {
  private readonly set: StatefulSet;
  private readonly control: StatefulSetPodControl;
  private readonly recorder: EventRecorder;
  private readonly minReadySeconds: number;
  private readonly nowMs: number;
  private readonly startOrdinal: number;
  /** OrderedReady: one step at a time, each waiting for the previous pod to be Running and Ready. */
  private readonly monotonic: boolean;
  readonly counts: StatefulSetCounts;
  private readonly replicas: Slot[];
  /** Pods beyond the wanted range, highest ordinal first. */
  private readonly condemned: Pod[] = [];
  private firstUnhealthy: Slot | undefined;

  constructor(input: StatefulSetSyncInput) {
    const spec = input.set.spec;
    this.set = input.set;
    this.control = input.control;
    this.recorder = input.recorder;
    this.nowMs = input.nowMs;
    this.minReadySeconds = spec?.minReadySeconds ?? 0;
    this.startOrdinal = spec?.ordinals?.start ?? 0;
    this.monotonic = (spec?.podManagementPolicy ?? "OrderedReady") === "OrderedReady";
    const updateRevision = statefulSetRevision(input.set);
    this.counts = {
      replicas: 0,
      readyReplicas: 0,
      availableReplicas: 0,
      currentReplicas: 0,
      updatedReplicas: 0,
      currentRevision: input.set.status?.currentRevision || updateRevision,
      updateRevision,
    };
    this.replicas = new Array<Slot>(spec?.replicas ?? defaultReplicas).fill(notCreated);
    for (const pod of input.pods) this.place(pod);
    this.condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));
    this.firstUnhealthy = this.replicas.find((slot) => !isHealthy(slot));
    // The condemned are highest first; Kubernetes looks for the first unhealthy one from the lowest.
    this.firstUnhealthy ??= [...this.condemned].reverse().find((pod) => !isHealthy(pod));
  }

  private place(pod: Pod): void {
    this.countPod(pod);
    const index = ordinalOf(pod) - this.startOrdinal;
    if (index >= 0 && index < this.replicas.length) this.replicas[index] = pod;
    else this.condemned.push(pod);
  }

  private countPod(pod: Pod): void {
    this.counts.replicas++;
    if (isPodRunningAndReady(pod)) {
      this.counts.readyReplicas++;
      if (isPodAvailable(pod, this.minReadySeconds, this.nowMs)) this.counts.availableReplicas++;
    }
    if (isPodTerminating(pod)) return;
    this.adjustRevisionCounts(pod, 1);
  }

  private adjustRevisionCounts(pod: Pod, delta: number): void {
    const revision = revisionOfPod(pod);
    if (revision === this.counts.currentRevision) this.counts.currentReplicas += delta;
    if (revision === this.counts.updateRevision) this.counts.updatedReplicas += delta;
  }

  /** Runs the three stages; each returns false when the pass must stop and wait for the next event. */
  async run(): Promise<void> {
    if (this.set.metadata?.deletionTimestamp !== undefined) return;
    if (!(await this.fillSlots())) return;
    if (!(await this.removeCondemned())) return;
    await this.rollOutNewTemplate();
  }

  private async fillSlots(): Promise<boolean> {
    for (let index = 0; index < this.replicas.length; index++) {
      const ordinal = this.startOrdinal + index;
      const slot = this.replicas[index] ?? notCreated;
      if (slot !== notCreated && isFinished(slot)) {
        // As Kubernetes (1.28+) does: delete it unless its deletion already started, and create the
        // replacement on a later pass, once the old object is gone. A pod being deleted is marked
        // Succeeded or Failed by its kubelet while its volumes are still being torn down; recreating
        // it now would fail on every pass (the name is taken) and delete it again and again.
        if (slot.metadata?.deletionTimestamp === undefined) await this.deleteFinishedPod(slot);
        if (this.monotonic) return false;
        continue;
      }
      if (slot === notCreated) {
        const pod = await this.createPod(ordinal);
        this.replicas[index] = pod;
        if (this.monotonic) return false;
        continue;
      }
      if (slot.status?.phase === "Pending") await this.control.createMissingClaims(this.set, slot, ordinal);
      if (this.monotonic && !this.isReadyToMoveOn(slot)) return false;
    }
    return true;
  }

  private isReadyToMoveOn(pod: Pod): boolean {
    return !isPodTerminating(pod) && isPodRunningAndReady(pod) && isPodAvailable(pod, this.minReadySeconds, this.nowMs);
  }

  private async deleteFinishedPod(pod: Pod): Promise<void> {
    const [reason, what] =
      pod.status?.phase === "Failed" ? ["RecreatingFailedPod", "failed"] : ["RecreatingTerminatedPod", "terminated"];
    const setName = `${this.set.metadata?.namespace ?? ""}/${this.set.metadata?.name ?? ""}`;
    this.recorder.event(
      this.set,
      "Warning",
      reason,
      `StatefulSet ${setName} is recreating ${what} Pod ${pod.metadata?.name ?? ""}`,
    );
    await this.control.deletePod(this.set, pod);
    this.counts.replicas--;
    this.adjustRevisionCounts(pod, -1);
  }

  private async createPod(ordinal: number): Promise<Pod> {
    const pod = newStatefulSetPod(this.set, ordinal);
    await this.control.createPod(this.set, pod, ordinal);
    this.counts.replicas++;
    this.adjustRevisionCounts(pod, 1);
    return pod;
  }

  /** Scale down: highest ordinal first; OrderedReady only once everything below is healthy. */
  private async removeCondemned(): Promise<boolean> {
    for (const pod of this.condemned) {
      if (isPodTerminating(pod)) {
        if (this.monotonic) return false;
        continue;
      }
      if (this.monotonic && pod !== this.firstUnhealthy && !this.isReadyToMoveOn(pod)) return false;
      await this.control.deletePod(this.set, pod);
      if (this.monotonic) return false;
    }
    return true;
  }

  /** RollingUpdate: delete the highest pod not at the update revision, once everything above it is healthy. */
  private async rollOutNewTemplate(): Promise<void> {
    const strategy = this.set.spec?.updateStrategy;
    if (strategy?.type === "OnDelete") return;
    const partition = strategy?.rollingUpdate?.partition ?? 0;
    for (let index = this.replicas.length - 1; index >= partition; index--) {
      const slot = this.replicas[index] ?? notCreated;
      if (slot !== notCreated && !isPodTerminating(slot) && revisionOfPod(slot) !== this.counts.updateRevision) {
        await this.deleteForUpdate(slot);
        return;
      }
      if (!isHealthy(slot)) return;
    }
  }

  private async deleteForUpdate(pod: Pod): Promise<void> {
    try {
      await this.control.deletePod(this.set, pod);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    this.counts.currentReplicas--;
  }
}

function ordinalOf(pod: Pod): number {
  return parentAndOrdinal(pod)?.ordinal ?? -1;
}

interface StatefulSetSyncResult {
  counts: StatefulSetCounts;
  /** The write that failed, if one did; the counts still describe what the pass saw and did. */
  error?: unknown;
}

/** Runs one pass. A failed write ends the pass early; status is still worth writing, as Kubernetes does. */
export async function syncStatefulSetPods(input: StatefulSetSyncInput): Promise<StatefulSetSyncResult> {
  const pass = new StatefulSetPass(input);
  try {
    await pass.run();
  } catch (error) {
    return { counts: pass.counts, error };
  }
  return { counts: pass.counts };
}
