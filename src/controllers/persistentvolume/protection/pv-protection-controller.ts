/**
 * The PV protection controller (pkg/controller/volume/pvprotection): every volume carries
 * `kubernetes.io/pv-protection`, and a deleted volume keeps it, staying Terminating, while it is
 * Bound to a claim. Once the PV controller has released it (claim gone), the finalizer goes and the
 * API removes the volume.
 */

import type { Lister } from "../../../api/informer/lister.ts";
import type { HandlerRegistration } from "../../../api/informer/shared-informer.ts";
import type { PersistentVolume } from "../../../api/objects.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import type { Logger } from "../../../runtime/logger.ts";
import { defaultControllerRateLimiter } from "../../../runtime/rate-limiter.ts";
import { runWorkers } from "../../../runtime/run-workers.ts";
import { WorkQueue } from "../../../runtime/workqueue.ts";
import type { Controller, ControllerContext } from "../../controller-context.ts";
import { pvProtectionFinalizer, volumeNameOf } from "../annotations.ts";
import { addFinalizer, isDeletionCandidate, needsFinalizer, removeFinalizer } from "./finalizers.ts";

const pvProtectionControllerName = "pv-protection-controller";

export class PvProtectionController implements Controller {
  readonly name = pvProtectionControllerName;
  private readonly context: ControllerContext;
  private readonly logger: Logger;
  private readonly queue: WorkQueue<string>;
  private readonly volumes: Lister<PersistentVolume>;
  private registration: HandlerRegistration | undefined;
  private running: Promise<void> | undefined;

  constructor(context: ControllerContext) {
    this.context = context;
    this.logger = context.logger.with({ component: pvProtectionControllerName });
    this.queue = new WorkQueue({
      name: "pv-protection",
      clock: context.clock,
      rateLimiter: defaultControllerRateLimiter<string>(context.clock),
      ...(context.metrics === undefined ? {} : { metrics: context.metrics }),
    });
    this.volumes = context.informers.informerFor("PersistentVolume").lister;
  }

  start(): void {
    if (this.running !== undefined) throw new Error(`${this.name}: start() called twice`);
    const onVolume = (volume: PersistentVolume) => {
      if (needsFinalizer(volume, pvProtectionFinalizer) || isDeletionCandidate(volume, pvProtectionFinalizer)) {
        this.queue.add(volumeNameOf(volume));
      }
    };
    this.registration = this.context.informers
      .informerFor("PersistentVolume")
      .addEventHandler({ onAdd: onVolume, onUpdate: (_old, volume) => onVolume(volume) });
    this.running = runWorkers(
      this.queue,
      1,
      (name) => this.processVolume(name),
      (name, error) =>
        this.logger.warn("could not update the volume's protection finalizer; retrying", {
          name,
          error: errorMessage(error),
        }),
    );
  }

  async stop(): Promise<void> {
    this.registration?.remove();
    this.queue.shutDown();
    await this.running;
  }

  private async processVolume(name: string): Promise<void> {
    const volume = this.volumes.get("", name);
    if (volume === undefined) return;
    const resource = this.context.client.persistentVolumes;
    if (isDeletionCandidate(volume, pvProtectionFinalizer)) {
      // The PV controller's phase says whether a claim still holds the volume.
      if (volume.status?.phase !== "Bound") {
        await removeFinalizer(resource, volume, pvProtectionFinalizer);
        return;
      }
      this.logger.debug("keeping the volume: it is bound", { volume: name });
    }
    if (needsFinalizer(volume, pvProtectionFinalizer)) await addFinalizer(resource, volume, pvProtectionFinalizer);
  }
}
