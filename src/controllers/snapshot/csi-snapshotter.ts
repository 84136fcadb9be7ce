/**
 * The csi-snapshotter sidecar (external-snapshotter's sidecar-controller), one per driver: it owns
 * the VolumeSnapshotContents of its driver.
 *
 * - A dynamic content (`source.volumeHandle`) gets the bound-protection finalizer and a
 *   CreateSnapshot named `snapshot-<snapshot uid>` with the class's parameters; the answer fills
 *   status (snapshotHandle, creationTime in ns, restoreSize in bytes, readyToUse). A snapshot not
 *   ready yet is asked again (the same request) with backoff until it is, as the CSI spec requires.
 * - A pre-provisioned content (`source.snapshotHandle`) is looked up with ListSnapshots(snapshot_id).
 * - A failure goes to `status.error` and is retried with backoff (1 s doubling to 5 min).
 * - A content being deleted with deletionPolicy Delete has its snapshot deleted (DeleteSnapshot),
 *   then its finalizer removed; with Retain the physical snapshot stays.
 */
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { VolumeSnapshotClass, VolumeSnapshotContent } from "../../api/objects.ts";
import type { Snapshot } from "../../csi/proto/types.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";
import { type CsiControllerClient, callWithTimeout } from "../csi/driver-connection.ts";
import { SidecarRun } from "../csi/sidecar-run.ts";
import {
  contentBoundFinalizer,
  snapshotNamePrefix,
  snapshotResyncPeriodMs,
  snapshotRetryMaxMs,
  snapshotRetryStartMs,
  snapshotterCallTimeoutMs,
  snapshotWorkers,
} from "./constants.ts";
import { SnapshotEventReason } from "./events.ts";
import {
  credentialsFromAnnotations,
  secretCredentials,
  snapshotSecretReference,
  snapshotterListSecretKeys,
} from "./snapshot-secrets.ts";

const nsPerSecond = 1_000_000_000;
/** StorageClass-style parameters the sidecar consumes itself and never passes to the driver. */
const reservedParameterPrefix = "csi.storage.k8s.io/";

interface CsiSnapshotterOptions {
  driverName: string;
  driver: CsiControllerClient;
}

/** status.creationTime: the CSI Timestamp as Unix nanoseconds. */
function creationTimeNs(snapshot: Snapshot): number | undefined {
  const time = snapshot.creationTime;
  return time === null ? undefined : time.seconds * nsPerSecond + time.nanos;
}

export class CsiSnapshotter implements Controller {
  readonly name: string;
  private readonly run: SidecarRun;
  private readonly logger: Logger;
  private readonly contents: SharedInformer<VolumeSnapshotContent>;
  private readonly classes: SharedInformer<VolumeSnapshotClass>;
  private readonly queue;
  private readonly recorder;

  constructor(
    private readonly context: ControllerContext,
    private readonly options: CsiSnapshotterOptions,
  ) {
    this.name = `csi-snapshotter/${options.driverName}`;
    this.logger = context.logger.with({ component: "csi-snapshotter", driver: options.driverName });
    this.recorder = recorderFor(context, `csi-snapshotter ${options.driverName}`);
    this.run = new SidecarRun({
      name: this.name,
      driverName: options.driverName,
      clock: context.clock,
      logger: this.logger,
      retryStartMs: snapshotRetryStartMs,
      retryMaxMs: snapshotRetryMaxMs,
    });
    this.queue = this.run.newQueue("volumesnapshotcontents");
    this.contents = context.informers.informerFor("VolumeSnapshotContent");
    this.classes = context.informers.informerFor("VolumeSnapshotClass");
  }

  start(): void {
    this.run.start(() => this.loop());
  }

  stop(): Promise<void> {
    return this.run.stop();
  }

  private async loop(): Promise<void> {
    const synced = await Promise.all([this.contents.waitForSync(), this.classes.waitForSync()]);
    if (!synced.every(Boolean) || this.run.isStopped) return;
    const enqueue = (content: VolumeSnapshotContent) => {
      if (content.spec?.driver === this.options.driverName) this.queue.add(content.metadata?.name ?? "");
    };
    this.run.listen(this.contents.addEventHandler({ onAdd: enqueue, onUpdate: (_, content) => enqueue(content) }));
    this.run.resyncEvery(snapshotResyncPeriodMs, () => {
      for (const content of this.contents.lister.list()) enqueue(content);
    });
    await this.run.runWorkers(snapshotWorkers, [{ queue: this.queue, process: (name) => this.sync(name) }]);
  }

  private async sync(name: string): Promise<void> {
    const content = this.contents.lister.get("", name);
    if (content === undefined || content.spec.driver !== this.options.driverName) return;
    if (content.metadata?.deletionTimestamp != null) return this.syncDeleted(content);
    await this.ensureFinalizer(content);
    if (content.status?.readyToUse === true && content.status.snapshotHandle !== undefined) return;
    let snapshot: Snapshot;
    try {
      snapshot =
        content.spec.source.snapshotHandle !== undefined
          ? await this.existingSnapshot(content, content.spec.source.snapshotHandle)
          : await this.createSnapshot(content);
      await this.writeStatus(content, snapshot);
    } catch (error) {
      await this.writeError(content, errorMessage(error));
      throw error;
    }
    // Not an error: the driver is still processing (uploading) it; the same request is repeated with backoff.
    if (!snapshot.readyToUse) throw new Error(`snapshot ${snapshot.snapshotId} is not ready to use yet; asking again`);
  }

  private call<T>(call: () => Promise<T>): Promise<T> {
    return callWithTimeout(this.context.clock, snapshotterCallTimeoutMs, call);
  }

  private async createSnapshot(content: VolumeSnapshotContent): Promise<Snapshot> {
    const className = content.spec.volumeSnapshotClassName;
    const snapshotClass = className === undefined ? undefined : this.classes.lister.get("", className);
    if (className !== undefined && snapshotClass === undefined) {
      throw new Error(
        `failed to get input parameters to create snapshot for content ${content.metadata?.name ?? ""}: "volumesnapshotclass.snapshot.storage.k8s.io \\"${className}\\" not found"`,
      );
    }
    let secrets: Record<string, string>;
    try {
      secrets = await credentialsFromAnnotations(this.context.client, content);
    } catch (error) {
      throw new Error(
        `failed to get input parameters to create snapshot for content ${content.metadata?.name ?? ""}: ${JSON.stringify(errorMessage(error))}`,
      );
    }
    const parameters = Object.fromEntries(
      Object.entries(snapshotClass?.parameters ?? {}).filter(([key]) => !key.startsWith(reservedParameterPrefix)),
    );
    const response = await this.call(() =>
      this.options.driver.createSnapshot({
        name: `${snapshotNamePrefix}-${content.spec.volumeSnapshotRef.uid ?? ""}`,
        sourceVolumeId: content.spec.source.volumeHandle ?? "",
        parameters,
        secrets,
      }),
    );
    if (response.snapshot === null) throw new Error("CreateSnapshot answered without a snapshot");
    return response.snapshot;
  }

  private async existingSnapshot(content: VolumeSnapshotContent, snapshotId: string): Promise<Snapshot> {
    const secrets = await this.listCredentials(content);
    const response = await this.call(() =>
      this.options.driver.listSnapshots({
        maxEntries: 0,
        startingToken: "",
        sourceVolumeId: "",
        snapshotId,
        secrets,
      }),
    );
    const found = response.entries.find((entry) => entry.snapshot?.snapshotId === snapshotId)?.snapshot;
    if (found === undefined || found === null) throw new Error(`could not find snapshot ${snapshotId}`);
    return found;
  }

  /** The class's list secret, for ListSnapshots of a pre-provisioned snapshot (none without a class). */
  private async listCredentials(content: VolumeSnapshotContent): Promise<Record<string, string>> {
    const className = content.spec.volumeSnapshotClassName;
    if (className === undefined) return {};
    const name = content.metadata?.name ?? "";
    const snapshotClass = this.classes.lister.get("", className);
    if (snapshotClass === undefined) {
      throw new Error(
        `failed to get snapshot class ${className} for snapshot content ${name}: volumesnapshotclass.snapshot.storage.k8s.io "${className}" not found`,
      );
    }
    try {
      const parameters = snapshotClass.parameters ?? {};
      const reference = snapshotSecretReference(snapshotterListSecretKeys, parameters, name, undefined);
      return await secretCredentials(this.context.client, reference);
    } catch (error) {
      throw new Error(`failed to get credentials for snapshot content ${name}: ${errorMessage(error)}`);
    }
  }

  private async ensureFinalizer(content: VolumeSnapshotContent): Promise<void> {
    if ((content.metadata?.finalizers ?? []).includes(contentBoundFinalizer)) return;
    await this.contentClient().mutate("", content.metadata?.name ?? "", (draft) => {
      draft.metadata = {
        ...draft.metadata,
        finalizers: [...(draft.metadata?.finalizers ?? []), contentBoundFinalizer],
      };
    });
  }

  private async writeStatus(content: VolumeSnapshotContent, snapshot: Snapshot): Promise<void> {
    const creationTime = creationTimeNs(snapshot);
    await this.contentClient().mutate(
      "",
      content.metadata?.name ?? "",
      (draft) => {
        const next = { ...draft.status, snapshotHandle: snapshot.snapshotId, readyToUse: snapshot.readyToUse };
        if (creationTime !== undefined) next.creationTime = creationTime;
        if (snapshot.sizeBytes > 0) next.restoreSize = snapshot.sizeBytes;
        delete next.error;
        draft.status = next;
      },
      { subresource: "status" },
    );
  }

  private async writeError(content: VolumeSnapshotContent, message: string): Promise<void> {
    this.recorder.event(
      content,
      "Warning",
      SnapshotEventReason.snapshotCreationFailed,
      `Failed to create snapshot: ${message}`,
    );
    const time = formatRfc3339(this.context.clock.now());
    await this.contentClient().mutate(
      "",
      content.metadata?.name ?? "",
      (draft) => {
        draft.status = {
          ...draft.status,
          error: { message: `Failed to check and update snapshot content: ${message}`, time },
        };
      },
      { subresource: "status" },
    );
  }

  private async syncDeleted(content: VolumeSnapshotContent): Promise<void> {
    if (!(content.metadata?.finalizers ?? []).includes(contentBoundFinalizer)) return;
    const handle = content.status?.snapshotHandle ?? content.spec.source.snapshotHandle;
    if (content.spec.deletionPolicy === "Delete" && handle !== undefined) {
      let secrets: Record<string, string>;
      try {
        secrets = await credentialsFromAnnotations(this.context.client, content);
      } catch (error) {
        this.recorder.event(
          content,
          "Warning",
          SnapshotEventReason.snapshotDeleteError,
          "Failed to get snapshot credentials",
        );
        throw new Error(
          `failed to get input parameters to delete snapshot for content ${content.metadata?.name ?? ""}: ${JSON.stringify(errorMessage(error))}`,
        );
      }
      try {
        await this.call(() => this.options.driver.deleteSnapshot({ snapshotId: handle, secrets }));
      } catch (error) {
        this.recorder.event(content, "Warning", SnapshotEventReason.snapshotDeleteError, `Failed to delete snapshot`);
        throw error;
      }
    }
    await this.contentClient().mutate("", content.metadata?.name ?? "", (draft) => {
      draft.metadata = {
        ...draft.metadata,
        finalizers: (draft.metadata?.finalizers ?? []).filter((finalizer) => finalizer !== contentBoundFinalizer),
      };
    });
  }

  private contentClient() {
    return this.context.client.resource("VolumeSnapshotContent");
  }
}
