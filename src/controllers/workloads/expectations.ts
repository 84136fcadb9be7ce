/**
 * Controller expectations (`pkg/controller/controller_utils.go`): a ReplicaSet that has just
 * created or deleted pods must not act again until its informer has seen those writes, or a sync
 * on a stale cache would create the same replicas twice. The controller records how many
 * creations and which deletions it expects; the informer handlers lower them as the events
 * arrive. Expectations older than `expectationsTimeoutMs` are treated as met, so a lost event
 * cannot stall a controller for ever.
 */
import type { Clock } from "../../runtime/clock.ts";
import { expectationsTimeoutMs } from "./constants.ts";

interface Expectation {
  pendingCreations: number;
  /** Keys (`namespace/name`) of pods whose deletion has not been observed yet. */
  pendingDeletions: Set<string>;
  setAtMs: number;
}

export class ControllerExpectations {
  private readonly clock: Clock;
  private readonly byController = new Map<string, Expectation>();

  constructor(clock: Clock) {
    this.clock = clock;
  }

  /** True when the controller may act: nothing pending, nothing recorded, or the record expired. */
  satisfied(controllerKey: string): boolean {
    const expectation = this.byController.get(controllerKey);
    if (expectation === undefined) return true;
    if (expectation.pendingCreations <= 0 && expectation.pendingDeletions.size === 0) return true;
    return this.clock.now() - expectation.setAtMs > expectationsTimeoutMs;
  }

  expectCreations(controllerKey: string, count: number): void {
    this.byController.set(controllerKey, {
      pendingCreations: count,
      pendingDeletions: new Set(),
      setAtMs: this.clock.now(),
    });
  }

  expectDeletions(controllerKey: string, podKeys: readonly string[]): void {
    this.byController.set(controllerKey, {
      pendingCreations: 0,
      pendingDeletions: new Set(podKeys),
      setAtMs: this.clock.now(),
    });
  }

  creationObserved(controllerKey: string): void {
    const expectation = this.byController.get(controllerKey);
    if (expectation !== undefined) expectation.pendingCreations--;
  }

  /** Only a deletion the controller asked for counts, so a second event for the same pod is harmless. */
  deletionObserved(controllerKey: string, podKey: string): void {
    this.byController.get(controllerKey)?.pendingDeletions.delete(podKey);
  }

  /** Forgets the controller (it was deleted). */
  delete(controllerKey: string): void {
    this.byController.delete(controllerKey);
  }
}
