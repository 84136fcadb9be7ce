/**
 * The kubelet's desired-state populator (pkg/kubelet/volumemanager/populator): every
 * `kubeletDesiredStatePopulatorLoopPeriodMs` it adds the volumes of new (or re-synced) pods to the
 * desired state and removes those of pods that are gone and whose containers no longer run.
 *
 * `hasAddedPods()` turns true after the first full pass that started once every pod source was
 * ready; until then the reconciler unmounts nothing, so a restarted kubelet cannot tear down a
 * volume whose pod it has simply not seen yet.
 *
 * Idle costs nothing (DESIGN.md, Cost model): a pass that changed nothing and waits for nothing
 * parks the loop (`ParkingLoop`) until the pod manager, the pod workers, either state of the world
 * or a `reprocessPod` says something changed, and runs at the next tick, the instant the
 * always-running loop would have seen it. It keeps its period while it cannot tell what would change
 * its answer: before the first full pass, after a pass that did work or failed, while a volume of
 * a pod waits for its containers or its mount to settle, or when the pod sources (or, while a volume
 * is attachable, the CSIDriver objects) cannot signal their changes.
 */
import type { PersistentVolumeClaim, Pod } from "kubernetes-types/core/v1.js";
import type { Client } from "../../../api/client/client.ts";
import { claimCapacity, volumeCapacity } from "../../../api/storage/claim-resize-status.ts";
import type { Clock, Timer } from "../../../runtime/clock.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import type { Logger } from "../../../runtime/logger.ts";
import { ParkingLoop, type PassVerdict } from "../../../runtime/parking-loop.ts";
import type { VolumePluginManager } from "../../../volume/plugin-manager.ts";
import type { VolumeSpec } from "../../../volume/spec.ts";
import type { ActualStateOfWorld } from "../cache/actual-state-of-world.ts";
import type { DesiredStateOfWorld } from "../cache/desired-state-of-world.ts";
import type { PodManager, PodStateProvider, SourcesReady } from "../pod-sources.ts";
import { podVolumeNames } from "../pod-volume-names.ts";
import { volumeSpecForPod } from "./volume-spec-for-pod.ts";

interface PopulatorOptions {
  clock: Clock;
  logger: Logger;
  loopPeriodMs: number;
  client: Client;
  plugins: VolumePluginManager;
  podManager: PodManager;
  podStateProvider: PodStateProvider;
  sourcesReady: SourcesReady;
  dsw: DesiredStateOfWorld;
  asw: ActualStateOfWorld;
  /** Called once, when `hasAddedPods()` turns true (the reconciler may start unmounting). */
  onAddedPods?: () => void;
  /**
   * Subscribes to changes of what makes a volume attachable (CSIDriver objects). Without it the
   * loop cannot park while a volume is attachable, since `attachRequired` may change unseen.
   */
  onAttachabilityChange?: (listener: () => void) => void;
}

function podUID(pod: Pod): string {
  return pod.metadata?.uid ?? "";
}

export class DesiredStateOfWorldPopulator {
  /**
   * uid → processed. Absent: never synced nor processed (a failure is retried every pass).
   * false: seen, re-sync requested (ReprocessPod). true: up to date until the next ReprocessPod.
   */
  private readonly processedPods = new Map<string, boolean>();
  private addedPods = false;
  private firstPassTimer: Timer | undefined;
  private readonly loop: ParkingLoop;
  /** False when a pod source cannot signal its changes: the loop then never parks. */
  private readonly sourcesSignalChanges: boolean;
  /** This pass did something, or saw something it must look at again next period. */
  private mustRunAgain = false;

  constructor(private readonly options: PopulatorOptions) {
    const { clock, logger, loopPeriodMs, podManager, podStateProvider, dsw, asw } = options;
    this.loop = new ParkingLoop(
      clock,
      loopPeriodMs,
      () => this.parkingPass(),
      (err) => logger.error("desired state populator pass failed", { error: errorMessage(err) }),
    );
    const wake = (): void => this.loop.wake();
    podManager.onChange?.(wake);
    podStateProvider.onChange?.(wake);
    dsw.onChange(wake);
    asw.onChange(wake);
    options.onAttachabilityChange?.(wake);
    this.sourcesSignalChanges = podManager.onChange !== undefined && podStateProvider.onChange !== undefined;
  }

  /** Starts the loop; the first pass runs one period from now, as Kubernetes' PollUntil does. */
  run(): void {
    this.firstPassTimer = this.options.clock.setTimer(this.options.loopPeriodMs, () => this.loop.start());
  }

  /** Stops the loop and waits for a pass in progress. */
  async stop(): Promise<void> {
    this.firstPassTimer?.cancel();
    this.firstPassTimer = undefined;
    await this.loop.stop();
  }

  hasAddedPods(): boolean {
    return this.addedPods;
  }

  /**
   * Makes the next pass process the pod again (its volumes are re-added and remounts flagged). The
   * pod counts as seen from now on: if that pass fails, it is retried at the next pod sync, not
   * every pass, as in Kubernetes.
   */
  reprocessPod(uid: string): void {
    this.processedPods.set(uid, false);
    this.loop.wake();
  }

  private async parkingPass(): Promise<PassVerdict> {
    await this.pass();
    const busy = this.mustRunAgain || !this.addedPods || !this.sourcesSignalChanges;
    return { busy };
  }

  /** One loop pass (what `run` repeats). */
  async pass(): Promise<void> {
    const sourcesWereReady = this.options.sourcesReady.allReady();
    this.mustRunAgain = false;
    try {
      await this.findAndAddNewPods();
      this.findAndRemoveDeletedPods();
    } catch (err) {
      this.mustRunAgain = true;
      this.options.logger.error("desired state populator pass failed", { error: errorMessage(err) });
    }
    if (sourcesWereReady && !this.addedPods) {
      this.addedPods = true;
      this.options.logger.info("Finished populating initial desired state of world");
      this.options.onAddedPods?.();
    }
  }

  private async findAndAddNewPods(): Promise<void> {
    const { podManager, podStateProvider } = this.options;
    for (const pod of podManager.getPods()) {
      const uid = podUID(pod);
      // After the first full pass only pods that may still start containers get volumes; before it,
      // every pod whose containers might still run keeps its volumes (a restarted kubelet).
      if (this.addedPods && podStateProvider.shouldPodContainersBeTerminating(uid)) continue;
      if (!this.addedPods && podStateProvider.shouldPodRuntimeBeRemoved(uid)) continue;
      await this.processPodVolumes(pod);
    }
  }

  private async processPodVolumes(pod: Pod): Promise<void> {
    const { dsw, asw, logger } = this.options;
    const uid = podUID(pod);
    if (this.processedPods.get(uid) === true) return;
    this.mustRunAgain = true;
    const names = podVolumeNames(pod);
    let allVolumesAdded = true;
    for (const volume of pod.spec?.volumes ?? []) {
      if (!names.mounts.has(volume.name) && !names.devices.has(volume.name)) {
        logger.debug("Skipping unused volume", { pod: uid, volumeName: volume.name });
        continue;
      }
      try {
        const { spec, volumeGidValue, claim } = await volumeSpecForPod(this.options.client, pod, volume, names);
        const volumeName = dsw.addPodToVolume(uid, pod, spec, volume.name, volumeGidValue);
        this.checkVolumeFSResize(volumeName, spec, claim);
      } catch (err) {
        logger.error("Error processing volume", { pod: uid, volumeName: volume.name, error: errorMessage(err) });
        dsw.addErrorToPod(uid, errorMessage(err));
        allVolumesAdded = false;
      }
    }
    if (allVolumesAdded) {
      this.processedPods.set(uid, true);
      // The pod was (re)synced: refresh the content of secret, configMap, downward API and projected volumes.
      asw.markRemountRequired(uid);
      dsw.popPodErrors(uid);
    } else if (this.processedPods.has(uid)) {
      // Seen before and failing now: keep the volumes that work and retry at the next ReprocessPod.
      this.processedPods.set(uid, true);
    }
  }

  /**
   * checkVolumeFSResize: records the PV's size as the size the pod's filesystem should have, and
   * the claim's capacity as the size it has (once, for a volume the ASW knows). A read-only use is
   * never grown. The PV and claim are read at each pod sync, so a grown claim is noticed at the
   * next one (the periodic sync runs every minute).
   */
  private checkVolumeFSResize(volumeName: string, spec: VolumeSpec, claim: PersistentVolumeClaim | undefined): void {
    const pv = spec.persistentVolume;
    if (pv === undefined || claim === undefined || spec.readOnly) return;
    const pvSize = volumeCapacity(pv);
    if (pvSize === undefined) return;
    this.options.dsw.updatePersistentVolumeSize(volumeName, pvSize.toBytes());
    this.options.asw.initializeClaimSize(volumeName, claimCapacity(claim)?.toBytes() ?? 0n);
  }

  private findAndRemoveDeletedPods(): void {
    const { dsw, asw, podManager, podStateProvider, plugins, logger } = this.options;
    for (const volume of dsw.getVolumesToMount()) {
      const uid = podUID(volume.pod);
      const pod = podManager.getPodByUID(uid);
      if (volume.pluginIsAttachable && this.options.onAttachabilityChange === undefined) this.mustRunAgain = true;
      if (pod !== undefined) {
        if (volume.pluginIsAttachable && this.becameNonAttachable(plugins, volume.volumeSpec)) {
          dsw.markVolumeAttachability(volume.volumeName, false);
          logger.info("Volume changes from attachable to non-attachable", { volumeName: volume.volumeName });
          continue;
        }
        if (!podStateProvider.shouldPodRuntimeBeRemoved(uid)) continue;
      }
      // Waiting for containers or a mount to settle: look again next period, as Kubernetes does.
      this.mustRunAgain = true;
      if (!podStateProvider.shouldPodRuntimeBeRemoved(uid)) {
        logger.debug(
          "Pod still has one or more containers in the non-exited state and will not be removed from desired state",
          { pod: uid },
        );
        continue;
      }
      // A pod that still exists keeps a volume whose mount the actual state has not recorded yet:
      // a mount in flight must land in the actual state first, or its teardown would be skipped.
      if (asw.podRemovedFromVolume(volume.podName, volume.volumeName) && pod !== undefined) continue;
      logger.debug("Removing volume from desired state", { pod: uid, volumeName: volume.volumeName });
      dsw.deletePodFromVolume(volume.podName, volume.volumeName);
      this.processedPods.delete(uid);
    }
    this.forgetOrphanedPods();
    for (const podName of dsw.getPodsWithErrors()) {
      if (podManager.getPodByUID(podName) === undefined) dsw.popPodErrors(podName);
    }
  }

  private becameNonAttachable(
    plugins: VolumePluginManager,
    spec: Parameters<VolumePluginManager["findAttachablePluginBySpec"]>[0],
  ): boolean {
    try {
      return plugins.findAttachablePluginBySpec(spec) === undefined;
    } catch (err) {
      // Plugin lookup failing (driver gone) says nothing about attachability: keep what we knew.
      this.options.logger.debug("cannot tell whether a volume is still attachable", { error: errorMessage(err) });
      return false;
    }
  }

  /** Processed-pod records of pods the pod manager no longer has and whose containers are gone. */
  private forgetOrphanedPods(): void {
    const { podManager, podStateProvider } = this.options;
    for (const uid of [...this.processedPods.keys()]) {
      if (podManager.getPodByUID(uid) === undefined && podStateProvider.shouldPodRuntimeBeRemoved(uid)) {
        this.processedPods.delete(uid);
      }
    }
  }
}
