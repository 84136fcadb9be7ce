/**
 * external-provisioner for one CSI driver (kubernetes-csi/external-provisioner on
 * sig-storage-lib-external-provisioner, spec §1.9–§1.11): provisions the claims the PV controller
 * hands to the driver and deletes the volumes it provisioned once they are Released.
 *
 * Startup follows the sidecar: probe the driver until ready, check its name, read its
 * capabilities (it must offer CREATE_DELETE_VOLUME). Then two work queues — claims by uid,
 * volumes by name — each retried 1 s doubling to 5 min after a failure, with a full resync
 * every 15 min. Every CSI call is bounded by `--timeout` (15 s).
 *
 * Events carry the provisioner's identity `<driver>_<host>_<uuid>` as `source.component`.
 */

import type { NamedIndex } from "../../api/informer/indexes.ts";
import { ensureIndex, volumeAttachmentsByPersistentVolume } from "../../api/informer/indexes.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { PersistentVolume, PersistentVolumeClaim, VolumeAttachment } from "../../api/objects.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { WorkQueue } from "../../runtime/workqueue.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";
import {
  annBetaStorageProvisioner,
  annStorageProvisioner,
  defaultSidecarHostName,
  externalProvisionerResyncPeriodMs,
  externalProvisionerWorkers,
} from "./constants.ts";
import { deleteVolumeOperation, isProvisionedBy, shouldDelete } from "./delete-volume.ts";
import type { CsiControllerClient } from "./driver-connection.ts";
import type { DriverInfo } from "./driver-startup.ts";
import { provisionClaimOperation } from "./provision-claim.ts";
import type { ProvisionerState, ProvisionerTopologyOptions } from "./provisioner-state.ts";
import { shouldProvision } from "./should-provision.ts";
import { SidecarRun } from "./sidecar-run.ts";
import { syncProvisionerFinalizer } from "./volume-finalizer.ts";

interface ExternalProvisionerOptions {
  /** The driver's name, as StorageClasses name it; the driver must report the same. */
  driverName: string;
  /** How the sidecar reaches the driver (socket or in-process). */
  driver: CsiControllerClient;
  /** The host part of the identity (the sidecar pod's hostname). */
  hostName?: string;
  /** `--default-fstype`. */
  defaultFsType?: string;
  /** Topology handling; by default on, not strict, immediate topology on. */
  topology?: Partial<ProvisionerTopologyOptions>;
}

/** Claims by uid: the claim queue's key, stable when a claim is deleted and created again. */
const claimsByUid: NamedIndex<PersistentVolumeClaim> = {
  name: "external-provisioner-claims-by-uid",
  indexFunc: (claim) => (claim.metadata?.uid ? [claim.metadata.uid] : []),
};

const defaultTopologyOptions: ProvisionerTopologyOptions = {
  topology: true,
  strictTopology: false,
  immediateTopology: true,
};

/** The volume identity's random part is below this (Go's `rand.Intn(10000)`). */
const volumeIdentityRandomBound = 9_999;

export class ExternalProvisioner implements Controller {
  /** `<driver>_<host>_<uuid>`: its events' `source.component`. */
  readonly name: string;
  private readonly context: ControllerContext;
  private readonly options: ExternalProvisionerOptions;
  private readonly logger: Logger;
  private readonly claims: SharedInformer<PersistentVolumeClaim>;
  private readonly volumes: SharedInformer<PersistentVolume>;
  private readonly attachments: SharedInformer<VolumeAttachment>;
  private readonly sidecar: SidecarRun;
  private readonly claimQueue: WorkQueue<string>;
  private readonly volumeQueue: WorkQueue<string>;
  private readonly volumeIdentity: string;

  constructor(context: ControllerContext, options: ExternalProvisionerOptions) {
    if (options.driverName === "") throw new Error("ExternalProvisioner: options.driverName must not be empty");
    this.context = context;
    this.options = options;
    const rng = context.rng.stream(`external-provisioner/${options.driverName}`);
    this.name = `${options.driverName}_${options.hostName ?? defaultSidecarHostName}_${rng.uuid()}`;
    const randomPart = rng.int(0, volumeIdentityRandomBound);
    this.volumeIdentity = `${context.clock.now()}-${randomPart}-${options.driverName}`;
    this.logger = context.logger.with({ component: "external-provisioner", driver: options.driverName });
    this.sidecar = new SidecarRun({
      name: this.name,
      driverName: options.driverName,
      clock: context.clock,
      logger: this.logger,
      retryStartMs: context.timers.externalProvisionerRetryStartMs,
      retryMaxMs: context.timers.externalProvisionerRetryMaxMs,
    });
    this.claimQueue = this.sidecar.newQueue("claims");
    this.volumeQueue = this.sidecar.newQueue("volumes");
    const factory = context.informers;
    this.claims = factory.informerFor("PersistentVolumeClaim");
    ensureIndex(this.claims, claimsByUid);
    this.volumes = factory.informerFor("PersistentVolume");
    this.attachments = factory.informerFor("VolumeAttachment");
    ensureIndex(this.attachments, volumeAttachmentsByPersistentVolume);
  }

  start(): void {
    this.sidecar.start(() => this.run());
  }

  stop(): Promise<void> {
    return this.sidecar.stop();
  }

  private async run(): Promise<void> {
    const driverInfo = await this.sidecar.connect(
      this.options.driver,
      this.context.timers.externalProvisionerTimeoutMs,
    );
    if (driverInfo === undefined || !this.canProvision(driverInfo)) return;
    const state = this.newState(driverInfo);
    if (!(await this.waitForCaches(state))) return;
    this.registerHandlers(state);
    this.sidecar.resyncEvery(externalProvisionerResyncPeriodMs, () => this.resync(state));
    await this.sidecar.runWorkers(externalProvisionerWorkers, [
      { queue: this.claimQueue, process: (uid) => this.processClaim(state, uid) },
      { queue: this.volumeQueue, process: (name) => this.processVolume(state, name) },
    ]);
  }

  /** The real sidecar exits when the driver cannot create volumes; this one stays idle and says why. */
  private canProvision(info: DriverInfo): boolean {
    const missing = !info.pluginCapabilities.has("CONTROLLER_SERVICE")
      ? "plugin CONTROLLER_SERVICE"
      : !info.controllerCapabilities.has("CREATE_DELETE_VOLUME")
        ? "controller CREATE_DELETE_VOLUME"
        : undefined;
    if (missing === undefined) return true;
    this.logger.error(
      `CSI driver does not support dynamic provisioning: ${missing} capability is not reported; ` +
        "this provisioner will not handle any claim",
    );
    return false;
  }

  private newState(driverInfo: DriverInfo): ProvisionerState {
    const factory = this.context.informers;
    return {
      driverName: this.options.driverName,
      identity: this.name,
      volumeIdentity: this.volumeIdentity,
      driver: this.options.driver,
      driverInfo,
      client: this.context.client,
      clock: this.context.clock,
      logger: this.logger,
      recorder: recorderFor(this.context, this.name),
      callTimeoutMs: this.context.timers.externalProvisionerTimeoutMs,
      defaultFsType: this.options.defaultFsType ?? "",
      topology: { ...defaultTopologyOptions, ...this.options.topology },
      classes: factory.informerFor("StorageClass").lister,
      volumes: this.volumes.lister,
      nodes: factory.informerFor("Node").lister,
      csiNodes: factory.informerFor("CSINode").lister,
      attachments: this.attachments.indexer,
      claimsInProgress: new Map(),
      unsavedVolumes: new Map(),
    };
  }

  private async waitForCaches(state: ProvisionerState): Promise<boolean> {
    const factory = this.context.informers;
    const informers = [
      this.claims,
      this.volumes,
      this.attachments,
      factory.informerFor("StorageClass"),
      factory.informerFor("Node"),
      factory.informerFor("CSINode"),
    ];
    const synced = await Promise.all(informers.map((informer) => informer.waitForSync()));
    if (!synced.every(Boolean)) state.logger.info("informers stopped before they synced; provisioner not started");
    return synced.every(Boolean) && !this.sidecar.isStopped;
  }

  private registerHandlers(state: ProvisionerState): void {
    const enqueueClaim = (claim: PersistentVolumeClaim) => {
      if (this.isForThisDriver(claim) || state.claimsInProgress.has(claim.metadata?.uid ?? "")) {
        this.claimQueue.add(claim.metadata?.uid ?? "");
      }
    };
    const enqueueVolume = (volume: PersistentVolume) => {
      if (isProvisionedBy(state, volume)) this.volumeQueue.add(volume.metadata?.name ?? "");
    };
    this.sidecar.listen(
      this.claims.addEventHandler({ onAdd: enqueueClaim, onUpdate: (_old, claim) => enqueueClaim(claim) }),
      this.volumes.addEventHandler({ onAdd: enqueueVolume, onUpdate: (_old, volume) => enqueueVolume(volume) }),
    );
  }

  private isForThisDriver(claim: PersistentVolumeClaim): boolean {
    const annotations = claim.metadata?.annotations ?? {};
    return (annotations[annStorageProvisioner] ?? annotations[annBetaStorageProvisioner]) === this.options.driverName;
  }

  private resync(state: ProvisionerState): void {
    for (const claim of this.claims.lister.list()) {
      if (this.isForThisDriver(claim)) this.claimQueue.add(claim.metadata?.uid ?? "");
    }
    for (const uid of state.claimsInProgress.keys()) this.claimQueue.add(uid);
    for (const volume of this.volumes.lister.list()) {
      if (isProvisionedBy(state, volume)) this.volumeQueue.add(volume.metadata?.name ?? "");
    }
  }

  /**
   * The library's syncClaim. A claim deleted while the driver may still be creating its volume is
   * provisioned to the end from its last known state, so the volume gets a PV and is reclaimed.
   */
  private async processClaim(state: ProvisionerState, uid: string): Promise<void> {
    const claim = this.claims.indexer.byIndex(claimsByUid.name, uid)[0] ?? state.claimsInProgress.get(uid);
    if (claim === undefined || !shouldProvision(state, claim)) return;
    const outcome = await provisionClaimOperation(state, claim);
    if (outcome.error === undefined || outcome.state === "Finished") {
      state.claimsInProgress.delete(uid);
      if (outcome.error === undefined || outcome.stop) return;
      throw outcome.error;
    }
    if (outcome.state === "InBackground") state.claimsInProgress.set(uid, claim);
    throw outcome.error;
  }

  private async processVolume(state: ProvisionerState, name: string): Promise<void> {
    const volume = this.volumes.lister.get("", name);
    if (volume === undefined) return;
    if (shouldDelete(state, volume)) {
      await deleteVolumeOperation(state, name);
      return;
    }
    await syncProvisionerFinalizer(state, volume);
  }
}
