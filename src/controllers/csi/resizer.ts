/**
 * external-resizer for one CSI driver (kubernetes-csi/external-resizer): grows the volumes of bound
 * claims whose storage request went up, by ControllerExpandVolume, then records it — PV
 * `spec.capacity`, and on the claim either FileSystemResizePending (NodeResizePending: kubelet grows
 * the filesystem) or the new `status.capacity` when nothing is left to do on the node.
 *
 * Conditions and statuses follow RecoverVolumeExpansionFailure (on by default since Kubernetes
 * 1.32): `allocatedResources`, `allocatedResourceStatuses` (ControllerResizeInProgress,
 * ControllerResizeInfeasible, NodeResizePending), Resizing and ControllerResizeError. Events:
 * Resizing, VolumeResizeFailed, FileSystemResizeRequired, VolumeResizeSuccessful, from
 * `external-resizer <driver>`.
 *
 * A driver without EXPAND_VOLUME on its controller gets the sidecar's trivial resizer: the PV
 * takes the new size at once and the node does the rest. A driver that answers FailedPrecondition
 * (expansion offline only, and the volume is in use) is not asked again while a pod uses the claim.
 */
import type { SecretReference } from "kubernetes-types/core/v1.js";
import { clone } from "../../api/client/copy.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { PersistentVolume, PersistentVolumeClaim, Pod } from "../../api/objects.ts";
import type { Quantity } from "../../api/quantity.ts";
import {
  controllerResizeInProgress,
  expansionFailedCondition,
  expansionFinished,
  expansionInfeasible,
  nodeExpansionPending,
} from "../../api/storage/claim-resize-status.ts";
import { CsiError, isFinalCsiError } from "../../csi/grpc/errors.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { WorkQueue } from "../../runtime/workqueue.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";
import { externalResizerWorkers } from "./constants.ts";
import { type CsiControllerClient, callWithTimeout } from "./driver-connection.ts";
import type { DriverInfo } from "./driver-startup.ts";
import { claimNeedsResize, planResize } from "./resize-claim.ts";
import { readSecretData } from "./secret-data.ts";
import { SidecarRun } from "./sidecar-run.ts";
import { capabilityForVolume } from "./volume-capability.ts";

interface ExternalResizerOptions {
  driverName: string;
  driver: CsiControllerClient;
}

/** Errors that say the size cannot be had: the claim is marked ControllerResizeInfeasible. */
const infeasibleCodes: ReadonlySet<string> = new Set(["InvalidArgument", "OutOfRange", "NotFound"]);

interface ResizeResult {
  sizeBytes: bigint;
  nodeExpansionRequired: boolean;
}

export class ExternalResizer implements Controller {
  readonly name: string;
  private readonly context: ControllerContext;
  private readonly options: ExternalResizerOptions;
  private readonly logger: Logger;
  private readonly recorder: EventRecorder;
  private readonly claims: SharedInformer<PersistentVolumeClaim>;
  private readonly volumes: SharedInformer<PersistentVolume>;
  private readonly pods: SharedInformer<Pod>;
  private readonly sidecar: SidecarRun;
  private readonly queue: WorkQueue<string>;
  /** Claims whose last ControllerExpandVolume ended with a final error. */
  private readonly finalErrors = new Set<string>();
  /** Claims an offline-only driver refused to grow while in use. */
  private readonly inUseErrors = new Set<string>();
  private info: DriverInfo | undefined;

  constructor(context: ControllerContext, options: ExternalResizerOptions) {
    if (options.driverName === "") throw new Error("ExternalResizer: options.driverName must not be empty");
    this.context = context;
    this.options = options;
    this.name = `external-resizer/${options.driverName}`;
    this.logger = context.logger.with({ component: "external-resizer", driver: options.driverName });
    this.recorder = recorderFor(context, `external-resizer ${options.driverName}`);
    this.sidecar = new SidecarRun({
      name: this.name,
      driverName: options.driverName,
      clock: context.clock,
      logger: this.logger,
      retryStartMs: context.timers.externalResizerRetryStartMs,
      retryMaxMs: context.timers.externalResizerRetryMaxMs,
    });
    this.queue = this.sidecar.newQueue("persistentvolumeclaims");
    this.claims = context.informers.informerFor("PersistentVolumeClaim");
    this.volumes = context.informers.informerFor("PersistentVolume");
    this.pods = context.informers.informerFor("Pod");
  }

  start(): void {
    this.sidecar.start(() => this.run());
  }

  stop(): Promise<void> {
    return this.sidecar.stop();
  }

  private async run(): Promise<void> {
    const info = await this.sidecar.connect(this.options.driver, this.context.timers.externalResizerTimeoutMs);
    if (info === undefined) return;
    this.info = info;
    const synced = await Promise.all([this.claims, this.volumes, this.pods].map((i) => i.waitForSync()));
    if (!synced.every(Boolean) || this.sidecar.isStopped) return;
    const enqueue = (claim: PersistentVolumeClaim) => {
      if (claimNeedsResize(claim)) this.queue.add(keyOf(claim));
    };
    this.sidecar.listen(
      this.claims.addEventHandler({ onAdd: enqueue, onUpdate: (_old, claim) => enqueue(claim) }),
      // A pod that goes away may free a claim an offline-only driver could not grow in use.
      this.pods.addEventHandler({
        onUpdate: (_old, pod) => this.enqueueInUseClaimsOf(pod),
        onDelete: (pod) => this.enqueueInUseClaimsOf(pod),
      }),
    );
    this.sidecar.resyncEvery(this.context.timers.externalResizerResyncPeriodMs, () => {
      for (const claim of this.claims.lister.list()) enqueue(claim);
    });
    await this.sidecar.runWorkers(externalResizerWorkers, [{ queue: this.queue, process: (key) => this.sync(key) }]);
  }

  private enqueueInUseClaimsOf(pod: Pod): void {
    const namespace = pod.metadata?.namespace ?? "";
    for (const volume of pod.spec?.volumes ?? []) {
      const key = `${namespace}/${volume.persistentVolumeClaim?.claimName ?? ""}`;
      if (this.inUseErrors.has(key)) this.queue.add(key);
    }
  }

  private async sync(key: string): Promise<void> {
    const [namespace = "", name = ""] = key.split("/");
    const claim = this.claims.lister.get(namespace, name);
    if (claim === undefined || !claimNeedsResize(claim)) return;
    const volume = this.volumes.lister.get("", claim.spec?.volumeName ?? "");
    if (volume === undefined || volume.spec?.csi?.driver !== this.options.driverName) return;
    const ref = volume.spec.claimRef;
    if (ref?.namespace !== namespace || ref.uid !== claim.metadata?.uid) return;
    const plan = planResize(claim, volume, {
      finalError: this.finalErrors.has(key),
      controllerExpansion: this.controllerExpansion,
    });
    if (plan.kind === "none") return;
    const current = plan.markInProgress
      ? await this.writeClaimStatus(claim, controllerResizeInProgress(claim, plan.newSize.toString(), this.now()))
      : claim;
    if (this.inUseErrors.has(key) && this.isInUse(current)) {
      const message =
        `Unable to expand ${key} because CSI driver ${this.options.driverName} only supports offline expansion ` +
        "and volume is currently in-use";
      this.recorder.event(current, "Warning", "VolumeResizeFailed", message);
      throw new Error(message);
    }
    this.recorder.event(current, "Normal", "Resizing", `External resizer is resizing volume ${volume.metadata?.name}`);
    this.inUseErrors.delete(key);
    await this.resizeAndRecord(key, current, volume, plan.newSize);
  }

  private get controllerExpansion(): boolean {
    return this.info?.controllerCapabilities.has("EXPAND_VOLUME") ?? false;
  }

  private async resizeAndRecord(
    key: string,
    claim: PersistentVolumeClaim,
    volume: PersistentVolume,
    newSize: Quantity,
  ): Promise<void> {
    let result: ResizeResult;
    try {
      result = await this.resize(volume, newSize);
    } catch (error) {
      await this.recordFailure(key, claim, error);
      const message = `resize volume "${volume.metadata?.name}" by resizer "${this.options.driverName}" failed: ${errorMessage(error)}`;
      this.recorder.event(claim, "Warning", "VolumeResizeFailed", message);
      throw new Error(message);
    }
    this.finalErrors.delete(key);
    const grown = newSize.toBytes() === result.sizeBytes ? newSize.toString() : `${result.sizeBytes}`;
    await this.context.client.persistentVolumes.mutate("", volume.metadata?.name ?? "", (draft) => {
      draft.spec = { ...(draft.spec ?? {}), capacity: { ...(draft.spec?.capacity ?? {}), storage: grown } };
    });
    if (result.nodeExpansionRequired) {
      const written = await this.writeClaimStatus(claim, nodeExpansionPending(claim, this.now()));
      this.recorder.event(
        written,
        "Normal",
        "FileSystemResizeRequired",
        "Require file system resize of volume on node",
      );
      return;
    }
    const written = await this.writeClaimStatus(claim, expansionFinished(claim, grown));
    this.recorder.event(written, "Normal", "VolumeResizeSuccessful", "Resize volume succeeded");
  }

  /** ControllerExpandVolume, or for a node-only driver the trivial resizer's answer. */
  private async resize(volume: PersistentVolume, newSize: Quantity): Promise<ResizeResult> {
    const csi = volume.spec?.csi;
    if (!this.controllerExpansion || csi === undefined) {
      return { sizeBytes: newSize.toBytes(), nodeExpansionRequired: true };
    }
    const spec = volume.spec ?? {};
    const secrets = await this.expandCredentials(csi.controllerExpandSecretRef ?? undefined);
    const response = await callWithTimeout(this.context.clock, this.context.timers.externalResizerTimeoutMs, () =>
      this.options.driver.controllerExpandVolume({
        volumeId: csi.volumeHandle,
        capacityRange: { requiredBytes: Number(newSize.toBytes()), limitBytes: 0 },
        secrets,
        volumeCapability: capabilityForVolume(
          spec,
          this.info?.controllerCapabilities.has("SINGLE_NODE_MULTI_WRITER") ?? false,
        ),
      }),
    );
    return { sizeBytes: BigInt(response.capacityBytes), nodeExpansionRequired: response.nodeExpansionRequired };
  }

  /** The PV's controllerExpandSecretRef, read as external-resizer's getCredentials reads it. */
  private async expandCredentials(reference: SecretReference | undefined): Promise<Record<string, string>> {
    if (reference === undefined) return {};
    const namespace = reference.namespace ?? "";
    const name = reference.name ?? "";
    try {
      return await readSecretData(this.context.client, { namespace, name });
    } catch (error) {
      throw new Error(`error getting secret ${name} in namespace ${namespace}: ${errorMessage(error)}`);
    }
  }

  private async recordFailure(key: string, claim: PersistentVolumeClaim, error: unknown): Promise<void> {
    if (error instanceof CsiError && error.code === "FailedPrecondition") this.inUseErrors.add(key);
    if (!isFinalCsiError(error)) {
      this.finalErrors.delete(key);
      return;
    }
    this.finalErrors.add(key);
    const text = errorMessage(error);
    const infeasible = error instanceof CsiError && infeasibleCodes.has(error.code);
    const status = infeasible
      ? expansionInfeasible(claim, "Controller", text, this.now())
      : expansionFailedCondition(claim, "Controller", text, this.now());
    try {
      await this.writeClaimStatus(claim, status, { unconditional: true });
    } catch (writeError) {
      throw new Error(
        `resizing failed in controller with ${text} but failed to update PVC ${key} with: ${errorMessage(writeError)}`,
      );
    }
  }

  /** Whether a pod that is not finished uses the claim (a pod on its way to a node counts). */
  private isInUse(claim: PersistentVolumeClaim): boolean {
    const namespace = claim.metadata?.namespace ?? "";
    const name = claim.metadata?.name ?? "";
    return this.pods.lister
      .list()
      .some(
        (pod) =>
          pod.metadata?.namespace === namespace &&
          pod.status?.phase !== "Succeeded" &&
          pod.status?.phase !== "Failed" &&
          (pod.spec?.volumes ?? []).some((volume) => volume.persistentVolumeClaim?.claimName === name),
      );
  }

  private async writeClaimStatus(
    claim: PersistentVolumeClaim,
    status: NonNullable<PersistentVolumeClaim["status"]>,
    options: { unconditional?: boolean } = {},
  ): Promise<PersistentVolumeClaim> {
    const draft = clone(claim);
    draft.status = status;
    // A failure is recorded even over a newer claim (external-resizer drops its version check there).
    if (options.unconditional) draft.metadata = { ...(draft.metadata ?? {}), resourceVersion: "" };
    return this.context.client.persistentVolumeClaims.updateStatus(draft);
  }

  private now(): string {
    return formatRfc3339(this.context.clock.now());
  }
}

function keyOf(claim: PersistentVolumeClaim): string {
  return `${claim.metadata?.namespace ?? ""}/${claim.metadata?.name ?? ""}`;
}
