/**
 * kube-controller-manager's volume expand controller (pkg/controller/volume/expand): when a bound
 * claim's storage request grows beyond its capacity, it looks for an in-tree plugin that can
 * expand the volume. kvol has none, so — as for every CSI volume in Kubernetes — it only says that
 * an external resizer must do it: `ExternalExpanding`, from `volume_expand`. The CSI driver's
 * external-resizer (controllers/csi/resizer.ts) does the work.
 */
import type { EventRecorder } from "../../api/events/recorder.ts";
import type { HandlerRegistration, SharedInformer } from "../../api/informer/shared-informer.ts";
import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import { claimCapacity, claimRequestSize } from "../../api/storage/claim-resize-status.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { defaultControllerRateLimiter } from "../../runtime/rate-limiter.ts";
import { runWorkers } from "../../runtime/run-workers.ts";
import { WorkQueue } from "../../runtime/workqueue.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";

export const expandControllerName = "persistentvolume-expander-controller";
/** The component the controller's events carry (kube-controller-manager's recorder for it). */
const expandEventComponent = "volume_expand";
const externalExpandingMessage = "waiting for an external controller to expand this PVC";

export class ExpandController implements Controller {
  readonly name = expandControllerName;
  private readonly logger: Logger;
  private readonly recorder: EventRecorder;
  private readonly queue: WorkQueue<string>;
  private readonly claims: SharedInformer<PersistentVolumeClaim>;
  private readonly volumes: SharedInformer<PersistentVolume>;
  private registration: HandlerRegistration | undefined;
  private running: Promise<void> | undefined;

  constructor(context: ControllerContext) {
    this.logger = context.logger.with({ component: expandControllerName });
    this.recorder = recorderFor(context, expandEventComponent);
    this.queue = new WorkQueue({
      name: "volume_expand",
      clock: context.clock,
      rateLimiter: defaultControllerRateLimiter<string>(context.clock),
    });
    this.claims = context.informers.informerFor("PersistentVolumeClaim");
    this.volumes = context.informers.informerFor("PersistentVolume");
  }

  start(): void {
    if (this.running !== undefined) throw new Error(`${this.name}: start() called twice`);
    const key = (claim: PersistentVolumeClaim) => `${claim.metadata?.namespace ?? ""}/${claim.metadata?.name ?? ""}`;
    this.registration = this.claims.addEventHandler({
      onAdd: (claim) => this.queue.add(key(claim)),
      // Only a request that went up (or a capacity that changed) needs a look, as in Kubernetes.
      onUpdate: (old, claim) => {
        const grew = compareSizes(claimRequestSize(claim), claimRequestSize(old)) > 0;
        const capacityGrew = compareSizes(claimCapacity(claim), claimCapacity(old)) > 0;
        if (grew || capacityGrew) this.queue.add(key(claim));
      },
    });
    this.running = runWorkers(
      this.queue,
      1,
      (claimKey) => this.sync(claimKey),
      (claimKey, error) => this.logger.warn("expand sync failed; retrying", { claimKey, error: errorMessage(error) }),
    );
  }

  async stop(): Promise<void> {
    this.registration?.remove();
    this.queue.shutDown();
    await this.running;
  }

  private async sync(key: string): Promise<void> {
    const [namespace = "", name = ""] = key.split("/");
    const claim = this.claims.lister.get(namespace, name);
    const volumeName = claim?.spec?.volumeName;
    if (claim === undefined || !volumeName) return;
    const volume = this.volumes.lister.get("", volumeName);
    const ref = volume?.spec?.claimRef;
    if (volume === undefined || ref?.namespace !== namespace || ref.uid !== claim.metadata?.uid) return;
    if (compareSizes(claimRequestSize(claim), claimCapacity(claim)) <= 0) return;
    // No in-tree plugin expands a CSI volume: finding one fails, and the event says so as a Warning.
    const type = volume.spec?.csi === undefined ? "Normal" : "Warning";
    this.recorder.event(claim, type, "ExternalExpanding", externalExpandingMessage);
  }
}

type Size = ReturnType<typeof claimRequestSize>;

function compareSizes(a: Size, b: Size): number {
  if (a === undefined) return b === undefined ? 0 : -1;
  if (b === undefined) return 1;
  return a.compare(b);
}
