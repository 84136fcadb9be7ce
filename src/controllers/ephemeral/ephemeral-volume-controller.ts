/**
 * The ephemeral volume controller (pkg/controller/volume/ephemeral): for every generic ephemeral
 * volume of a pod (`volumes[].ephemeral.volumeClaimTemplate`) it creates the claim
 * `<pod>-<volume>` in the pod's namespace, with the template's labels, annotations and spec, and
 * the pod as its controlling owner (controller: true, blockOwnerDeletion: true). The garbage
 * collector deletes the claim once the pod is gone. A claim of that name the pod does not control
 * is left alone and the pod waits (`PVC <ns>/<name> was not created for pod <ns>/<pod> (pod is not
 * owner)`); a failed create is a Warning event on the pod, reason FailedBinding.
 */
import { isAlreadyExists } from "../../api/errors.ts";
import type { HandlerRegistration } from "../../api/informer/shared-informer.ts";
import type { PersistentVolumeClaim, Pod } from "../../api/objects.ts";
import { objectKey, splitObjectKey } from "../../api/objects.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { defaultControllerRateLimiter } from "../../runtime/rate-limiter.ts";
import { runWorkers } from "../../runtime/run-workers.ts";
import { WorkQueue } from "../../runtime/workqueue.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";

export const ephemeralVolumeControllerName = "ephemeral-volume-controller";
/** The event reason of a failed claim creation (events.FailedBinding). */
const failedBindingReason = "FailedBinding";

type PodVolume = NonNullable<NonNullable<Pod["spec"]>["volumes"]>[number];

/** ephemeral.VolumeClaimName. */
export function ephemeralClaimName(pod: Pod, volume: PodVolume): string {
  return `${pod.metadata?.name ?? ""}-${volume.name}`;
}

function isControlledBy(claim: PersistentVolumeClaim, pod: Pod): boolean {
  return (
    claim.metadata?.namespace === pod.metadata?.namespace &&
    (claim.metadata?.ownerReferences ?? []).some(
      (owner) => owner.controller === true && owner.uid === pod.metadata?.uid,
    )
  );
}

export class EphemeralVolumeController implements Controller {
  readonly name = ephemeralVolumeControllerName;
  private readonly logger: Logger;
  private readonly queue: WorkQueue<string>;
  private readonly registrations: HandlerRegistration[] = [];
  private running: Promise<void> | undefined;

  constructor(private readonly context: ControllerContext) {
    this.logger = context.logger.with({ component: ephemeralVolumeControllerName });
    this.queue = new WorkQueue({
      name: "ephemeral_volume",
      clock: context.clock,
      rateLimiter: defaultControllerRateLimiter<string>(context.clock),
    });
  }

  start(): void {
    if (this.running !== undefined) throw new Error(`${this.name}: start() called twice`);
    const pods = this.context.informers.informerFor("Pod");
    const claims = this.context.informers.informerFor("PersistentVolumeClaim");
    const onPod = (pod: Pod) => {
      if (pod.metadata?.deletionTimestamp === undefined && (pod.spec?.volumes ?? []).some((v) => v.ephemeral)) {
        this.queue.add(objectKey(pod));
      }
    };
    // A deleted claim of a live pod is made again, as upstream's claim delete handler does.
    const onClaimDeleted = (claim: PersistentVolumeClaim) => {
      for (const owner of claim.metadata?.ownerReferences ?? []) {
        if (owner.kind === "Pod" && owner.controller === true)
          this.queue.add(`${claim.metadata?.namespace}/${owner.name}`);
      }
    };
    this.registrations.push(
      pods.addEventHandler({ onAdd: onPod, onUpdate: (_old, pod) => onPod(pod) }),
      claims.addEventHandler({ onDelete: onClaimDeleted }),
    );
    this.running = runWorkers(
      this.queue,
      1,
      (key) => this.syncPod(key),
      (key, error) => this.logger.warn("ephemeral volume sync failed; retrying", { key, error: errorMessage(error) }),
    );
  }

  async stop(): Promise<void> {
    for (const registration of this.registrations) registration.remove();
    this.queue.shutDown();
    await this.running;
  }

  private async syncPod(key: string): Promise<void> {
    const { namespace, name } = splitObjectKey(key);
    const pod = this.context.informers.informerFor("Pod").lister.get(namespace, name);
    if (pod === undefined || pod.metadata?.deletionTimestamp !== undefined) return;
    for (const volume of pod.spec?.volumes ?? []) {
      if (volume.ephemeral !== undefined) await this.handleVolume(pod, volume);
    }
  }

  private async handleVolume(pod: Pod, volume: PodVolume): Promise<void> {
    const namespace = pod.metadata?.namespace ?? "";
    const claimName = ephemeralClaimName(pod, volume);
    const existing = this.context.informers.informerFor("PersistentVolumeClaim").lister.get(namespace, claimName);
    if (existing !== undefined) {
      if (isControlledBy(existing, pod)) return;
      throw new Error(
        `PVC ${namespace}/${claimName} was not created for pod ${namespace}/${pod.metadata?.name ?? ""} (pod is not owner)`,
      );
    }
    const template = volume.ephemeral?.volumeClaimTemplate;
    const claim: PersistentVolumeClaim = {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: {
        name: claimName,
        namespace,
        ...(template?.metadata?.labels === undefined ? {} : { labels: { ...template.metadata.labels } }),
        ...(template?.metadata?.annotations === undefined ? {} : { annotations: { ...template.metadata.annotations } }),
        ownerReferences: [
          {
            apiVersion: "v1",
            kind: "Pod",
            name: pod.metadata?.name ?? "",
            uid: pod.metadata?.uid ?? "",
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: structuredClone(template?.spec ?? {}),
    };
    try {
      await this.context.client.persistentVolumeClaims.create(claim);
    } catch (error) {
      if (isAlreadyExists(error)) return; // the informer will show it; its owner is checked then
      recorderFor(this.context, ephemeralVolumeControllerName).event(
        pod,
        "Warning",
        failedBindingReason,
        `PVC creation failed: ${errorMessage(error)}`,
      );
      throw new Error(`create PVC ${claimName}: ${errorMessage(error)}`, { cause: error });
    }
  }
}
