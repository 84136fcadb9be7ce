/**
 * The snapshot controller (external-snapshotter's common-controller), one per cluster:
 *
 * - Dynamic snapshots: a VolumeSnapshot of a bound claim gets its finalizers, the claim gets
 *   `pvc-as-source-protection`, and the controller creates `snapcontent-<snapshot uid>` naming the
 *   claim's volume handle, the class's driver and deletion policy (the class named, else the
 *   driver's default class). The csi-snapshotter sidecar then cuts it.
 * - Pre-provisioned snapshots: a VolumeSnapshot naming an existing content binds to it once the
 *   content's volumeSnapshotRef names the snapshot back.
 * - Status: the bound content's readyToUse, restoreSize (bytes → quantity), creationTime (ns →
 *   RFC 3339) and error are copied to the snapshot, with SnapshotCreated / SnapshotReady events.
 * - Deletion: a snapshot still restoring a Pending claim waits (SnapshotDeletePending); otherwise a
 *   Delete policy marks the content being-deleted and deletes it (the sidecar deletes the physical
 *   snapshot), Retain leaves it; then the snapshot's finalizers go.
 */
import { isAlreadyExists, isNotFound } from "../../api/errors.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type {
  PersistentVolume,
  PersistentVolumeClaim,
  VolumeSnapshot,
  VolumeSnapshotClass,
  VolumeSnapshotContent,
} from "../../api/objects.ts";
import { objectKey, splitObjectKey } from "../../api/objects.ts";
import { formatQuantity, Quantity } from "../../api/quantity.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";
import { SidecarRun } from "../csi/sidecar-run.ts";
import {
  defaultSnapshotClassAnnotation,
  dynamicContentNamePrefix,
  pvcAsSourceFinalizer,
  snapshotApiVersion,
  snapshotAsSourceFinalizer,
  snapshotBeingDeletedAnnotation,
  snapshotBoundFinalizer,
  snapshotGroup,
  snapshotResyncPeriodMs,
  snapshotRetryMaxMs,
  snapshotRetryStartMs,
  snapshotWorkers,
} from "./constants.ts";
import {
  contentCreationFailedMessage,
  createInputFailedMessage,
  creatingSnapshotMessage,
  deletePendingMessage,
  SnapshotEventReason,
  snapshotCreatedMessage,
  snapshotReadyMessage,
} from "./events.ts";
import { deletionSecretAnnotations, snapshotSecretReference, snapshotterSecretKeys } from "./snapshot-secrets.ts";

export const snapshotControllerName = "snapshot-controller";
const nsPerMs = 1_000_000;

export function dynamicContentName(snapshot: VolumeSnapshot): string {
  return `${dynamicContentNamePrefix}-${snapshot.metadata?.uid ?? ""}`;
}

export class SnapshotController implements Controller {
  readonly name = snapshotControllerName;
  private readonly run: SidecarRun;
  private readonly recorder: EventRecorder;
  private readonly logger: Logger;
  private readonly snapshots: SharedInformer<VolumeSnapshot>;
  private readonly contents: SharedInformer<VolumeSnapshotContent>;
  private readonly classes: SharedInformer<VolumeSnapshotClass>;
  private readonly claims: SharedInformer<PersistentVolumeClaim>;
  private readonly volumes: SharedInformer<PersistentVolume>;
  private readonly queue;

  constructor(private readonly context: ControllerContext) {
    this.logger = context.logger.with({ component: snapshotControllerName });
    this.recorder = recorderFor(context, snapshotControllerName);
    this.run = new SidecarRun({
      name: snapshotControllerName,
      driverName: "all drivers",
      clock: context.clock,
      logger: this.logger,
      retryStartMs: snapshotRetryStartMs,
      retryMaxMs: snapshotRetryMaxMs,
    });
    this.queue = this.run.newQueue("volumesnapshots");
    this.snapshots = context.informers.informerFor("VolumeSnapshot");
    this.contents = context.informers.informerFor("VolumeSnapshotContent");
    this.classes = context.informers.informerFor("VolumeSnapshotClass");
    this.claims = context.informers.informerFor("PersistentVolumeClaim");
    this.volumes = context.informers.informerFor("PersistentVolume");
  }

  start(): void {
    this.run.start(() => this.loop());
  }

  stop(): Promise<void> {
    return this.run.stop();
  }

  private async loop(): Promise<void> {
    const informers = [this.snapshots, this.contents, this.classes, this.claims, this.volumes];
    const synced = await Promise.all(informers.map((informer) => informer.waitForSync()));
    if (!synced.every(Boolean) || this.run.isStopped) return;
    const enqueue = (snapshot: VolumeSnapshot) => this.queue.add(objectKey(snapshot));
    const enqueueOwner = (content: VolumeSnapshotContent) => {
      const ref = content.spec?.volumeSnapshotRef;
      if (ref?.name !== undefined) this.queue.add(`${ref.namespace ?? ""}/${ref.name}`);
    };
    const enqueueRestoring = (claim: PersistentVolumeClaim) => {
      const source = claim.spec?.dataSourceRef ?? claim.spec?.dataSource;
      if (source?.kind === "VolumeSnapshot") this.queue.add(`${claim.metadata?.namespace ?? ""}/${source.name}`);
      for (const snapshot of this.snapshots.lister.listNamespace(claim.metadata?.namespace ?? "")) {
        if (snapshot.spec?.source?.persistentVolumeClaimName === claim.metadata?.name) enqueue(snapshot);
      }
    };
    this.run.listen(
      this.snapshots.addEventHandler({ onAdd: enqueue, onUpdate: (_, snapshot) => enqueue(snapshot) }),
      this.contents.addEventHandler({ onAdd: enqueueOwner, onUpdate: (_, content) => enqueueOwner(content) }),
      this.claims.addEventHandler({ onUpdate: (_, claim) => enqueueRestoring(claim), onDelete: enqueueRestoring }),
    );
    this.run.resyncEvery(snapshotResyncPeriodMs, () => {
      for (const snapshot of this.snapshots.lister.list()) enqueue(snapshot);
    });
    await this.run.runWorkers(snapshotWorkers, [{ queue: this.queue, process: (key) => this.sync(key) }]);
  }

  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitObjectKey(key);
    const snapshot = this.snapshots.lister.get(namespace, name);
    if (snapshot === undefined) return;
    if (snapshot.metadata?.deletionTimestamp != null) return this.syncDeleted(snapshot);
    await this.ensureSnapshotFinalizers(snapshot);
    const contentName = snapshot.spec.source.volumeSnapshotContentName;
    if (contentName !== undefined) return this.syncPreProvisioned(snapshot, contentName);
    return this.syncDynamic(snapshot);
  }

  private async ensureSnapshotFinalizers(snapshot: VolumeSnapshot): Promise<void> {
    const wanted = [snapshotBoundFinalizer, ...(this.isRestoring(snapshot) ? [snapshotAsSourceFinalizer] : [])];
    const has = snapshot.metadata?.finalizers ?? [];
    const stale = !this.isRestoring(snapshot) && has.includes(snapshotAsSourceFinalizer);
    if (wanted.every((finalizer) => has.includes(finalizer)) && !stale) return;
    await this.snapshotClient().mutate(snapshot.metadata?.namespace ?? "", snapshot.metadata?.name ?? "", (draft) => {
      const kept = (draft.metadata?.finalizers ?? []).filter((f) => f !== snapshotAsSourceFinalizer || !stale);
      for (const finalizer of wanted) if (!kept.includes(finalizer)) kept.push(finalizer);
      draft.metadata = { ...draft.metadata, finalizers: kept };
    });
  }

  /** A claim of the snapshot's namespace is Pending with the snapshot as its data source. */
  private isRestoring(snapshot: VolumeSnapshot): boolean {
    return this.claims.lister.listNamespace(snapshot.metadata?.namespace ?? "").some((claim) => {
      const source = claim.spec?.dataSourceRef ?? claim.spec?.dataSource;
      return (
        source?.kind === "VolumeSnapshot" &&
        source.apiGroup === snapshotGroup &&
        source.name === snapshot.metadata?.name &&
        claim.status?.phase === "Pending"
      );
    });
  }

  private async syncPreProvisioned(snapshot: VolumeSnapshot, contentName: string): Promise<void> {
    const content = this.contents.lister.get("", contentName);
    if (content === undefined) {
      return this.fail(snapshot, SnapshotEventReason.contentMissing, "VolumeSnapshotContent is missing");
    }
    const ref = content.spec.volumeSnapshotRef;
    if (ref.name !== snapshot.metadata?.name || ref.namespace !== snapshot.metadata?.namespace) {
      const message = `VolumeSnapshotContent [${contentName}] is bound to a different snapshot`;
      return this.fail(snapshot, SnapshotEventReason.contentMisbound, message);
    }
    if (ref.uid === undefined) {
      await this.contentClient().mutate("", contentName, (draft) => {
        draft.spec.volumeSnapshotRef = { ...draft.spec.volumeSnapshotRef, uid: snapshot.metadata?.uid ?? "" };
      });
    }
    await this.copyStatus(snapshot, content);
  }

  private async syncDynamic(snapshot: VolumeSnapshot): Promise<void> {
    const existing = this.contents.lister.get("", dynamicContentName(snapshot));
    if (existing !== undefined) {
      await this.releaseClaimWhenCut(snapshot, existing);
      return this.copyStatus(snapshot, existing);
    }
    let content: VolumeSnapshotContent;
    try {
      const volume = await this.protectedVolume(snapshot);
      await this.setDefaultClass(snapshot, volume);
      content = this.newContent(snapshot, volume);
    } catch (error) {
      const detail = createInputFailedMessage(snapshot.metadata?.name ?? "", errorMessage(error));
      return this.fail(snapshot, SnapshotEventReason.contentCreationFailed, contentCreationFailedMessage(detail));
    }
    try {
      await this.contentClient().create(content);
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    this.recorder.event(
      snapshot,
      "Normal",
      SnapshotEventReason.creatingSnapshot,
      creatingSnapshotMessage(objectKey(snapshot)),
    );
    await this.snapshotClient().mutate(
      snapshot.metadata?.namespace ?? "",
      snapshot.metadata?.name ?? "",
      (draft) => {
        draft.status = {
          ...draft.status,
          boundVolumeSnapshotContentName: content.metadata?.name ?? "",
          readyToUse: false,
        };
      },
      { subresource: "status" },
    );
  }

  /** The claim's bound volume, after putting `pvc-as-source-protection` on the claim. */
  private async protectedVolume(snapshot: VolumeSnapshot): Promise<PersistentVolume> {
    const namespace = snapshot.metadata?.namespace ?? "";
    const claimName = snapshot.spec.source.persistentVolumeClaimName ?? "";
    const claim = this.claims.lister.get(namespace, claimName);
    if (claim === undefined) {
      throw new Error(
        `failed to retrieve PVC ${claimName} from the lister: "persistentvolumeclaim \\"${claimName}\\" not found"`,
      );
    }
    const volumeName = claim.spec?.volumeName ?? "";
    if (claim.status?.phase !== "Bound" || volumeName === "") {
      throw new Error(`the PVC ${claimName} is not yet bound to a PV, will not attempt to take a snapshot`);
    }
    const volume = this.volumes.lister.get("", volumeName);
    if (volume?.spec?.csi === undefined) throw new Error("claim in dataSource not bound or invalid");
    if (
      !(claim.metadata?.finalizers ?? []).includes(pvcAsSourceFinalizer) &&
      claim.metadata?.deletionTimestamp == null
    ) {
      await this.context.client.persistentVolumeClaims.mutate(namespace, claimName, (draft) => {
        draft.metadata = {
          ...draft.metadata,
          finalizers: [...(draft.metadata?.finalizers ?? []), pvcAsSourceFinalizer],
        };
      });
    }
    return volume;
  }

  private newContent(snapshot: VolumeSnapshot, volume: PersistentVolume): VolumeSnapshotContent {
    const snapshotClass = this.classFor(snapshot, volume.spec?.csi?.driver ?? "");
    const name = dynamicContentName(snapshot);
    const secret = snapshotSecretReference(snapshotterSecretKeys, snapshotClass.parameters ?? {}, name, snapshot);
    const annotations = deletionSecretAnnotations(secret);
    return {
      apiVersion: snapshotApiVersion,
      kind: "VolumeSnapshotContent",
      metadata: { name, ...(Object.keys(annotations).length === 0 ? {} : { annotations }) },
      spec: {
        volumeSnapshotRef: {
          kind: "VolumeSnapshot",
          namespace: snapshot.metadata?.namespace ?? "",
          name: snapshot.metadata?.name ?? "",
          uid: snapshot.metadata?.uid ?? "",
          apiVersion: snapshotApiVersion,
          resourceVersion: snapshot.metadata?.resourceVersion ?? "",
        },
        source: { volumeHandle: volume.spec?.csi?.volumeHandle ?? "" },
        volumeSnapshotClassName: snapshotClass.metadata?.name ?? "",
        deletionPolicy: snapshotClass.deletionPolicy,
        driver: snapshotClass.driver,
      },
    };
  }

  /** SetDefaultSnapshotClass: a snapshot naming no class gets its driver's default written into its spec. */
  private async setDefaultClass(snapshot: VolumeSnapshot, volume: PersistentVolume): Promise<void> {
    if (snapshot.spec.volumeSnapshotClassName !== undefined) return;
    const className = this.classFor(snapshot, volume.spec?.csi?.driver ?? "").metadata?.name ?? "";
    await this.snapshotClient().mutate(snapshot.metadata?.namespace ?? "", snapshot.metadata?.name ?? "", (draft) => {
      draft.spec = { ...draft.spec, volumeSnapshotClassName: className };
    });
  }

  /** The class the snapshot names, else the one default class of the volume's driver. */
  private classFor(snapshot: VolumeSnapshot, driver: string): VolumeSnapshotClass {
    const className = snapshot.spec.volumeSnapshotClassName;
    if (className !== undefined) {
      const named = this.classes.lister.get("", className);
      if (named === undefined) throw new Error(`volumesnapshotclass.snapshot.storage.k8s.io "${className}" not found`);
      return named;
    }
    const defaults = this.classes.lister
      .list()
      .filter((c) => c.driver === driver && c.metadata?.annotations?.[defaultSnapshotClassAnnotation] === "true");
    const [only, ...more] = defaults;
    if (only === undefined) throw new Error("cannot find default snapshot class");
    if (more.length > 0) throw new Error(`${defaults.length} default snapshot classes were found`);
    return only;
  }

  /** Once the snapshot is cut (or failed for good), the source claim may go. */
  private async releaseClaimWhenCut(snapshot: VolumeSnapshot, content: VolumeSnapshotContent): Promise<void> {
    if (content.status?.readyToUse !== true) return;
    const namespace = snapshot.metadata?.namespace ?? "";
    const claimName = snapshot.spec.source.persistentVolumeClaimName ?? "";
    const claim = this.claims.lister.get(namespace, claimName);
    if (!(claim?.metadata?.finalizers ?? []).includes(pvcAsSourceFinalizer)) return;
    const others = this.snapshots.lister
      .listNamespace(namespace)
      .filter((other) => other.spec.source.persistentVolumeClaimName === claimName && other.status?.readyToUse !== true)
      .filter((other) => other.metadata?.uid !== snapshot.metadata?.uid);
    if (others.length > 0) return;
    await this.context.client.persistentVolumeClaims.mutate(namespace, claimName, (draft) => {
      draft.metadata = {
        ...draft.metadata,
        finalizers: (draft.metadata?.finalizers ?? []).filter((f) => f !== pvcAsSourceFinalizer),
      };
    });
  }

  private async copyStatus(snapshot: VolumeSnapshot, content: VolumeSnapshotContent): Promise<void> {
    const status = content.status ?? {};
    const wasCreated = snapshot.status?.creationTime !== undefined;
    const wasReady = snapshot.status?.readyToUse === true;
    const updated = await this.snapshotClient().mutate(
      snapshot.metadata?.namespace ?? "",
      snapshot.metadata?.name ?? "",
      (draft) => {
        const next = { ...draft.status, boundVolumeSnapshotContentName: content.metadata?.name ?? "" };
        if (status.readyToUse !== undefined) next.readyToUse = status.readyToUse;
        if (status.creationTime !== undefined)
          next.creationTime = formatRfc3339(Math.floor(status.creationTime / nsPerMs));
        if (status.restoreSize !== undefined)
          next.restoreSize = formatQuantity(Quantity.fromBytes(BigInt(status.restoreSize)));
        if (status.error !== undefined) next.error = status.error;
        else delete next.error;
        draft.status = next;
      },
      { subresource: "status" },
    );
    const key = objectKey(snapshot);
    if (!wasCreated && updated.status?.creationTime !== undefined) {
      this.recorder.event(snapshot, "Normal", SnapshotEventReason.snapshotCreated, snapshotCreatedMessage(key));
    }
    if (!wasReady && updated.status?.readyToUse === true) {
      this.recorder.event(snapshot, "Normal", SnapshotEventReason.snapshotReady, snapshotReadyMessage(key));
    }
  }

  /** updateSnapshotErrorStatusWithEvent: the event, and the error in status with readyToUse false. */
  private async fail(snapshot: VolumeSnapshot, reason: string, message: string): Promise<void> {
    this.recorder.event(snapshot, "Warning", reason, message);
    const time = formatRfc3339(this.context.clock.now());
    await this.snapshotClient().mutate(
      snapshot.metadata?.namespace ?? "",
      snapshot.metadata?.name ?? "",
      (draft) => {
        if (draft.status?.error?.message === message) return;
        draft.status = { ...draft.status, readyToUse: false, error: { message, time } };
      },
      { subresource: "status" },
    );
    throw new Error(message);
  }

  private async syncDeleted(snapshot: VolumeSnapshot): Promise<void> {
    if (this.isRestoring(snapshot)) {
      this.recorder.event(snapshot, "Warning", SnapshotEventReason.deletePending, deletePendingMessage);
      return;
    }
    const contentName = snapshot.status?.boundVolumeSnapshotContentName;
    const content = contentName === undefined ? undefined : this.contents.lister.get("", contentName);
    if (content !== undefined && content.spec.deletionPolicy === "Delete") {
      await this.contentClient().mutate("", content.metadata?.name ?? "", (draft) => {
        draft.metadata = {
          ...draft.metadata,
          annotations: { ...draft.metadata?.annotations, [snapshotBeingDeletedAnnotation]: "yes" },
        };
      });
      try {
        await this.contentClient().delete("", content.metadata?.name ?? "");
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    await this.snapshotClient().mutate(snapshot.metadata?.namespace ?? "", snapshot.metadata?.name ?? "", (draft) => {
      const ours = [snapshotBoundFinalizer, snapshotAsSourceFinalizer];
      draft.metadata = {
        ...draft.metadata,
        finalizers: (draft.metadata?.finalizers ?? []).filter((f) => !ours.includes(f)),
      };
    });
  }

  private snapshotClient() {
    return this.context.client.resource("VolumeSnapshot");
  }

  private contentClient() {
    return this.context.client.resource("VolumeSnapshotContent");
  }
}
