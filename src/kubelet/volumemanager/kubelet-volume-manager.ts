/**
 * The kubelet's volume manager (pkg/kubelet/volumemanager/volume_manager.go): owns the desired and
 * actual states of the world, the populator and the reconciler, and answers the node agent's
 * questions (are this pod's volumes mounted? which volumes are in use?). See volume-manager.ts for
 * the contract.
 */

import { posix } from "node:path";
import type { Node, Pod } from "kubernetes-types/core/v1.js";
import type { Client } from "../../api/client/client.ts";
import { EventRecorder } from "../../api/events/recorder.ts";
import type { Timers } from "../../api/timers.ts";
import type { Clock } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { Metrics } from "../../runtime/metrics.ts";
import type { VolumeEventRecorder } from "../../volume/operationexecutor/operation-context.ts";
import { OperationExecutor } from "../../volume/operationexecutor/operation-executor.ts";
import type { VolumePluginManager } from "../../volume/plugin-manager.ts";
import type { NodeVolumeContext } from "../../volume/volume-host.ts";
import { type SyncCancellation, SyncCancelledError } from "../pod/sync-cancellation.ts";
import { ActualStateOfWorld } from "./cache/actual-state-of-world.ts";
import { DesiredStateOfWorld } from "./cache/desired-state-of-world.ts";
import { CorruptedMountRepair } from "./corrupted-mounts.ts";
import { volumeManagerTotalVolumesGauge } from "./metrics.ts";
import { cleanupOrphanedPodDirs } from "./orphaned-pod-dirs.ts";
import type { PodManager, PodStateProvider, SourcesReady } from "./pod-sources.ts";
import { mountedVolumePathsFromDisk } from "./pod-volume-dirs.ts";
import { expectedVolumeNames } from "./pod-volume-names.ts";
import { pollImmediateUntil } from "./poll-until.ts";
import { DesiredStateOfWorldPopulator } from "./populator/desired-state-of-world-populator.ts";
import { Reconciler } from "./reconciler/reconciler.ts";
import type { VolumeManager } from "./volume-manager.ts";
import { volumeStatsGauges } from "./volume-stats-metrics.ts";

/** The event source of everything the kubelet reports. */
export const kubeletEventComponent = "kubelet";

type VolumeManagerTimers = Pick<
  Timers,
  | "kubeletReconcilerLoopPeriodMs"
  | "kubeletDesiredStatePopulatorLoopPeriodMs"
  | "podAttachAndMountTimeoutMs"
  | "podAttachAndMountRetryIntervalMs"
  | "waitForAttachTimeoutMs"
>;

interface VolumeManagerOptions {
  clock: Clock;
  logger: Logger;
  timers: VolumeManagerTimers;
  client: Client;
  /** The node's Host, root directory and Mounter; `node.nodeName` names the Node object. */
  node: NodeVolumeContext;
  /** Plugins registered with this node's VolumeHost. */
  plugins: VolumePluginManager;
  podManager: PodManager;
  podStateProvider: PodStateProvider;
  sourcesReady: SourcesReady;
  /** Events go here; by default a recorder with source `kubelet` on this node is created. */
  recorder?: VolumeEventRecorder;
  /** This Node from the kubelet's informer: node affinity and the cheap "attached yet?" check. */
  cachedNode?: () => Node | undefined;
  /** false: the kubelet attaches and detaches itself (`--enable-controller-attach-detach=false`). */
  controllerAttachDetachEnabled?: boolean;
  /**
   * kvol going beyond Kubernetes (default true): at each pod re-sync, a mounted CSI volume whose pod
   * path answers with a corrupted-mount error (a dead FUSE daemon) is published again
   * (corrupted-mounts.ts). false: Kubernetes' behaviour, the dead mount stays until the pod goes.
   */
  repairCorruptedCsiMounts?: boolean;
  /** Subscribes to CSIDriver changes (attachRequired), so the populator may park while volumes are attachable. */
  onCsiDriverChange?: (listener: () => void) => void;
  /** The kubelet's registry: storage_operation_duration_seconds and volume_manager_total_volumes. */
  metrics?: Metrics;
}

function podUID(pod: Pod): string {
  return pod.metadata?.uid ?? "";
}

/** Go's `%v` of a []string: `[a b]`. */
function goList(items: readonly string[]): string {
  return `[${items.join(" ")}]`;
}

export class KubeletVolumeManager implements VolumeManager {
  readonly dsw: DesiredStateOfWorld;
  readonly asw: ActualStateOfWorld;
  readonly executor: OperationExecutor;
  private readonly populator: DesiredStateOfWorldPopulator;
  private readonly reconciler: Reconciler;
  private readonly corruptedMounts: CorruptedMountRepair | undefined;
  private started: Promise<void> | undefined;

  constructor(private readonly options: VolumeManagerOptions) {
    const { clock, logger, timers, client, node, plugins } = options;
    const nodeName = node.nodeName;
    this.dsw = new DesiredStateOfWorld(plugins);
    this.asw = new ActualStateOfWorld(nodeName, plugins);
    const recorder =
      options.recorder ??
      new EventRecorder({ client, clock, logger, source: { component: kubeletEventComponent, host: nodeName } });
    this.executor = new OperationExecutor({
      plugins,
      recorder,
      nodes: client.nodes,
      clock,
      logger,
      node,
      ...(options.cachedNode === undefined ? {} : { cachedNode: options.cachedNode }),
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
      claims: {
        get: (namespace, name) => client.persistentVolumeClaims.get(namespace, name),
        writeStatus: (claim, status) => client.persistentVolumeClaims.updateStatus({ ...claim, status }),
      },
    });
    if (options.metrics !== undefined) {
      volumeManagerTotalVolumesGauge(options.metrics, {
        desired: () => this.dsw.getVolumesToMount(),
        actual: () => this.asw.getMountedVolumes(),
      });
      volumeStatsGauges(
        options.metrics,
        () => this.asw.getMountedVolumes(),
        (path) => node.host.statfs(path),
      );
    }
    this.populator = new DesiredStateOfWorldPopulator({
      clock,
      logger,
      loopPeriodMs: timers.kubeletDesiredStatePopulatorLoopPeriodMs,
      client,
      plugins,
      podManager: options.podManager,
      podStateProvider: options.podStateProvider,
      sourcesReady: options.sourcesReady,
      dsw: this.dsw,
      asw: this.asw,
      onAddedPods: () => this.reconciler.wake(),
      ...(options.onCsiDriverChange === undefined ? {} : { onAttachabilityChange: options.onCsiDriverChange }),
    });
    this.corruptedMounts =
      (options.repairCorruptedCsiMounts ?? true)
        ? new CorruptedMountRepair({ host: node.host, asw: this.asw, logger })
        : undefined;
    this.reconciler = new Reconciler({
      clock,
      logger,
      loopPeriodMs: timers.kubeletReconcilerLoopPeriodMs,
      waitForAttachTimeoutMs: timers.waitForAttachTimeoutMs,
      nodeName,
      controllerAttachDetachEnabled: options.controllerAttachDetachEnabled ?? true,
      dsw: this.dsw,
      asw: this.asw,
      executor: this.executor,
      plugins,
      node,
      populatorHasAddedPods: () => this.populator.hasAddedPods(),
      getNode: () => client.nodes.get("", nodeName),
    });
  }

  run(): void {
    if (this.started !== undefined) return;
    this.populator.run();
    this.started = this.reconciler.run().catch((err: unknown) => {
      this.options.logger.error("volume reconciler failed to start", { error: errorMessage(err) });
    });
  }

  async stop(): Promise<void> {
    await this.started;
    await Promise.all([this.populator.stop(), this.reconciler.stop()]);
  }

  async waitForAttachAndMount(pod: Pod, cancelled?: SyncCancellation): Promise<void> {
    const expected = expectedVolumeNames(pod);
    if (expected.length === 0) return;
    const uid = podUID(pod);
    // Every pod sync passes here: re-processing the pod refreshes its secret/configMap volumes.
    this.populator.reprocessPod(uid);
    // kvol: dead CSI pod mounts are published again before containers are (re)started on them.
    const republishing = (await this.corruptedMounts?.flagCorruptedMounts(uid)) ?? [];
    const stillCorrupted = (): string[] =>
      republishing
        .filter((mount) => this.asw.podExistsInVolume(uid, mount.volumeName).kind === "remountRequired")
        .map((mount) => mount.outerVolumeSpecName);
    const { clock, timers } = this.options;
    try {
      await pollImmediateUntil(
        clock,
        timers.podAttachAndMountRetryIntervalMs,
        timers.podAttachAndMountTimeoutMs,
        () => this.allMounted(uid, expected) && (republishing.length === 0 || stillCorrupted().length === 0),
        cancelled,
      );
    } catch (err) {
      if (err instanceof SyncCancelledError) throw err;
      const unmounted = [...new Set([...this.unmountedVolumes(uid, expected), ...stillCorrupted()])].sort();
      if (unmounted.length === 0) return;
      throw new Error(
        `unmounted volumes=${goList(unmounted)}, unattached volumes=${goList(this.unattachedVolumes(uid))}, ` +
          `failed to process volumes=${goList(this.volumesNotInDesiredState(uid, expected))}: ${errorMessage(err)}`,
        { cause: err },
      );
    }
  }

  async waitForUnmount(pod: Pod, cancelled?: SyncCancellation): Promise<void> {
    const uid = podUID(pod);
    this.populator.reprocessPod(uid);
    const { clock, timers } = this.options;
    try {
      await pollImmediateUntil(
        clock,
        timers.podAttachAndMountRetryIntervalMs,
        timers.podAttachAndMountTimeoutMs,
        () => !this.asw.podHasMountedVolumes(uid),
        cancelled,
      );
    } catch (err) {
      if (err instanceof SyncCancelledError) throw err;
      const mounted = this.asw
        .getMountedVolumesForPod(uid)
        .map((volume) => volume.outerVolumeSpecName)
        .sort();
      if (mounted.length === 0) return;
      throw new Error(`mounted volumes=${goList(mounted)}: ${errorMessage(err)}`, { cause: err });
    }
  }

  getVolumesInUse(): string[] {
    const inUse = new Set<string>();
    for (const volume of this.dsw.getVolumesToMount()) if (volume.pluginIsAttachable) inUse.add(volume.volumeName);
    for (const volume of this.asw.getAttachedVolumes()) if (volume.pluginIsAttachable) inUse.add(volume.volumeName);
    return [...inUse].sort();
  }

  statesHaveBeenSynced(): boolean {
    return this.reconciler.statesHaveBeenSynced();
  }

  markVolumesAsReportedInUse(volumes: readonly string[]): void {
    this.dsw.markVolumesReportedInUse(volumes);
  }

  /**
   * Kubernetes' podVolumesExist: a mount the actual state still records (mounted or uncertain), or
   * a pod volume directory that is still a mount point. A directory that cannot be checked counts.
   */
  async podVolumesExist(uid: string): Promise<boolean> {
    if (this.asw.getPossiblyMountedVolumesForPod(uid).length > 0) return true;
    const { node, logger } = this.options;
    try {
      const paths = await mountedVolumePathsFromDisk(node.host, node.mounter, node.rootDir, uid);
      if (paths.length > 0) logger.debug("Pod found, but volumes are still mounted on disk", { podUID: uid, paths });
      return paths.length > 0;
    } catch (err) {
      logger.error("Pod found, but error occurred during checking mounted volumes from disk", {
        podUID: uid,
        error: errorMessage(err),
      });
      return true;
    }
  }

  getMountedVolumesForPod(uid: string): Map<string, string> {
    const paths = new Map<string, string>();
    for (const volume of this.asw.getMountedVolumesForPod(uid)) {
      if (volume.mounter !== undefined) {
        paths.set(volume.outerVolumeSpecName, volume.mounter.getPath());
      } else if (volume.blockVolumeMapper !== undefined) {
        const { dir, linkName } = volume.blockVolumeMapper.getPodDeviceMapPath();
        paths.set(volume.outerVolumeSpecName, posix.join(dir, linkName));
      }
    }
    return paths;
  }

  /** Outer → inner volume spec name of the pod's mounted volumes (a claim's inner name is its PV's). */
  getInnerVolumeNamesForPod(uid: string): Map<string, string> {
    const names = new Map<string, string>();
    for (const volume of this.asw.getMountedVolumesForPod(uid)) {
      names.set(volume.outerVolumeSpecName, volume.innerVolumeSpecName);
    }
    return names;
  }

  reprocessPod(uid: string): void {
    this.populator.reprocessPod(uid);
  }

  /**
   * Removes `<root>/pods/<uid>` of pods neither in `knownPodUIDs` (pod manager ∪ running pods) nor
   * holding volumes; returns the problems met (HandlePodCleanups logs them).
   */
  cleanupOrphanedPodDirs(knownPodUIDs: ReadonlySet<string>): Promise<string[]> {
    const { node, logger } = this.options;
    return cleanupOrphanedPodDirs(
      { host: node.host, rootDir: node.rootDir, logger, podVolumesExist: (uid) => this.podVolumesExist(uid) },
      knownPodUIDs,
    );
  }

  /** Done when every expected volume is mounted for the pod; a populator error for the pod ends the wait. */
  private allMounted(uid: string, expected: readonly string[]): boolean {
    const errors = this.dsw.popPodErrors(uid);
    if (errors.length > 0) throw new Error(errors.join("; "));
    return this.asw.podHasVolumesMounted(uid, expected);
  }

  private unmountedVolumes(uid: string, expected: readonly string[]): string[] {
    const mounted = new Set(this.asw.getMountedVolumesForPod(uid).map((volume) => volume.outerVolumeSpecName));
    return expected.filter((name) => !mounted.has(name)).sort();
  }

  private unattachedVolumes(uid: string): string[] {
    return this.dsw
      .getVolumesToMount()
      .filter(
        (volume) => volume.podName === uid && volume.pluginIsAttachable && !this.asw.volumeExists(volume.volumeName),
      )
      .map((volume) => volume.outerVolumeSpecName)
      .sort();
  }

  private volumesNotInDesiredState(uid: string, expected: readonly string[]): string[] {
    const inDesiredState = new Set(
      this.dsw
        .getVolumesToMount()
        .filter((volume) => volume.podName === uid)
        .map((volume) => volume.outerVolumeSpecName),
    );
    return expected.filter((name) => !inDesiredState.has(name)).sort();
  }
}

export function createVolumeManager(options: VolumeManagerOptions): KubeletVolumeManager {
  return new KubeletVolumeManager(options);
}
