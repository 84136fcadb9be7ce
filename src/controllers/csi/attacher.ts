/**
 * external-attacher for one CSI driver (kubernetes-csi/external-attacher, spec §2.11): answers the
 * VolumeAttachments the attach/detach controller creates for the driver (`spec.attacher`), by
 * ControllerPublishVolume / ControllerUnpublishVolume, or — for a driver without
 * PUBLISH_UNPUBLISH_VOLUME — by marking them attached at once.
 *
 * Startup follows the sidecar: probe until ready, check the driver's name, read its capabilities
 * to choose the handler. Then two work queues, VolumeAttachments and PersistentVolumes, each
 * retried 1 s doubling to 5 min after a failure, with a resync every 10 min. Every CSI call is
 * bounded by `--timeout` (15 s).
 */

import { ensureIndex, volumeAttachmentsByPersistentVolume } from "../../api/informer/indexes.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { PersistentVolume, VolumeAttachment } from "../../api/objects.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { WorkQueue } from "../../runtime/workqueue.ts";
import type { Controller, ControllerContext } from "../controller-context.ts";
import type { AttacherState, AttachHandler } from "./attacher-state.ts";
import { externalAttacherWorkers } from "./constants.ts";
import { CsiAttachHandler } from "./csi-attach-handler.ts";
import type { CsiControllerClient } from "./driver-connection.ts";
import type { DriverInfo } from "./driver-startup.ts";
import { attacherFinalizerFor, hasFinalizer } from "./finalizers.ts";
import { SidecarRun } from "./sidecar-run.ts";
import { TrivialAttachHandler } from "./trivial-attach-handler.ts";
import { shouldEnqueueVaChange } from "./va-change-filter.ts";

interface ExternalAttacherOptions {
  /** The driver's name, as VolumeAttachments' `spec.attacher` names it; the driver must report the same. */
  driverName: string;
  /** How the sidecar reaches the driver (socket or in-process). */
  driver: CsiControllerClient;
}

/** Which handler the driver's capabilities call for (external-attacher main.go). */
type AttachHandlerKind = "csi" | "trivial";

function attachHandlerKindFor(info: DriverInfo): AttachHandlerKind {
  if (!info.pluginCapabilities.has("CONTROLLER_SERVICE")) return "trivial";
  return info.controllerCapabilities.has("PUBLISH_UNPUBLISH_VOLUME") ? "csi" : "trivial";
}

export class ExternalAttacher implements Controller {
  readonly name: string;
  private readonly context: ControllerContext;
  private readonly options: ExternalAttacherOptions;
  private readonly logger: Logger;
  private readonly finalizer: string;
  private readonly attachments: SharedInformer<VolumeAttachment>;
  private readonly volumes: SharedInformer<PersistentVolume>;
  private readonly sidecar: SidecarRun;
  private readonly attachmentQueue: WorkQueue<string>;
  private readonly volumeQueue: WorkQueue<string>;
  private chosenHandler: AttachHandlerKind | undefined;

  constructor(context: ControllerContext, options: ExternalAttacherOptions) {
    if (options.driverName === "") throw new Error("ExternalAttacher: options.driverName must not be empty");
    this.context = context;
    this.options = options;
    this.name = `external-attacher/${options.driverName}`;
    this.finalizer = attacherFinalizerFor(options.driverName);
    this.logger = context.logger.with({ component: "external-attacher", driver: options.driverName });
    this.sidecar = new SidecarRun({
      name: this.name,
      driverName: options.driverName,
      clock: context.clock,
      logger: this.logger,
      retryStartMs: context.timers.externalAttacherRetryStartMs,
      retryMaxMs: context.timers.externalAttacherRetryMaxMs,
    });
    this.attachmentQueue = this.sidecar.newQueue("volumeattachments");
    this.volumeQueue = this.sidecar.newQueue("persistentvolumes");
    this.attachments = context.informers.informerFor("VolumeAttachment");
    ensureIndex(this.attachments, volumeAttachmentsByPersistentVolume);
    this.volumes = context.informers.informerFor("PersistentVolume");
  }

  /** The handler chosen at startup; undefined until the driver answered. */
  get handlerKind(): AttachHandlerKind | undefined {
    return this.chosenHandler;
  }

  start(): void {
    this.sidecar.start(() => this.run());
  }

  stop(): Promise<void> {
    return this.sidecar.stop();
  }

  private async run(): Promise<void> {
    const timeoutMs = this.context.timers.externalAttacherTimeoutMs;
    const driverInfo = await this.sidecar.connect(this.options.driver, timeoutMs);
    if (driverInfo === undefined) return;
    const handler = this.newHandler(driverInfo, timeoutMs);
    const csiNodes = this.context.informers.informerFor("CSINode");
    const synced = await Promise.all([this.attachments, this.volumes, csiNodes].map((i) => i.waitForSync()));
    if (!synced.every(Boolean) || this.sidecar.isStopped) return;
    this.registerHandlers();
    this.sidecar.resyncEvery(this.context.timers.externalAttacherResyncPeriodMs, () => this.resync());
    await this.sidecar.runWorkers(externalAttacherWorkers, [
      { queue: this.attachmentQueue, process: (name) => this.processAttachment(handler, name) },
      { queue: this.volumeQueue, process: (name) => this.processVolume(handler, name) },
    ]);
  }

  private newHandler(info: DriverInfo, callTimeoutMs: number): AttachHandler {
    const state: AttacherState = {
      driverName: this.options.driverName,
      finalizer: this.finalizer,
      driver: this.options.driver,
      client: this.context.client,
      clock: this.context.clock,
      logger: this.logger,
      callTimeoutMs,
      singleNodeMultiWriter: info.controllerCapabilities.has("SINGLE_NODE_MULTI_WRITER"),
      publishReadOnly: info.controllerCapabilities.has("PUBLISH_READONLY"),
      volumes: this.volumes.lister,
      csiNodes: this.context.informers.informerFor("CSINode").lister,
      attachments: this.attachments.indexer,
    };
    this.chosenHandler = attachHandlerKindFor(info);
    this.logger.info(`using the ${this.chosenHandler} handler`, { driver: info.name });
    return this.chosenHandler === "csi" ? new CsiAttachHandler(state) : new TrivialAttachHandler(state);
  }

  private isForThisDriver(attachment: VolumeAttachment): boolean {
    return attachment.spec?.attacher === this.options.driverName;
  }

  private registerHandlers(): void {
    const enqueueAttachment = (attachment: VolumeAttachment) => {
      if (this.isForThisDriver(attachment)) this.attachmentQueue.add(attachment.metadata?.name ?? "");
    };
    // Only a PV on its way out, still carrying the finalizer, needs the attacher.
    const enqueueVolume = (volume: PersistentVolume) => {
      if (volume.metadata?.deletionTimestamp && hasFinalizer(volume, this.finalizer)) {
        this.volumeQueue.add(volume.metadata.name ?? "");
      }
    };
    this.sidecar.listen(
      this.attachments.addEventHandler({
        onAdd: enqueueAttachment,
        onUpdate: (oldAttachment, attachment) => {
          if (shouldEnqueueVaChange(oldAttachment, attachment)) enqueueAttachment(attachment);
        },
        // The PV's finalizer may go now that this attachment is gone.
        onDelete: (attachment) => {
          const pvName = attachment.spec?.source?.persistentVolumeName;
          if (this.isForThisDriver(attachment) && pvName) this.volumeQueue.add(pvName);
        },
      }),
      this.volumes.addEventHandler({ onAdd: enqueueVolume, onUpdate: (_old, volume) => enqueueVolume(volume) }),
    );
  }

  private resync(): void {
    for (const attachment of this.attachments.lister.list()) {
      if (this.isForThisDriver(attachment)) this.attachmentQueue.add(attachment.metadata?.name ?? "");
    }
    for (const volume of this.volumes.lister.list()) {
      if (volume.metadata?.deletionTimestamp && hasFinalizer(volume, this.finalizer)) {
        this.volumeQueue.add(volume.metadata.name ?? "");
      }
    }
  }

  private async processAttachment(handler: AttachHandler, name: string): Promise<void> {
    const attachment = this.attachments.lister.get("", name);
    if (attachment === undefined || !this.isForThisDriver(attachment)) return;
    await handler.syncVolumeAttachment(attachment);
  }

  private async processVolume(handler: AttachHandler, name: string): Promise<void> {
    const volume = this.volumes.lister.get("", name);
    if (volume === undefined) return;
    await handler.syncPersistentVolume(volume);
  }
}
