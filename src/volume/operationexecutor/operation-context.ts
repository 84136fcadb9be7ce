/**
 * What every generated operation may use (Kubernetes' operationGenerator fields): the plugins, an
 * event recorder, the API for the two Node reads the operations make, and the clock and logger.
 * The kubelet adds its node (subPath cleanup, the device-in-use check, the node-affinity check).
 */
import type { Node, PersistentVolumeClaim, Pod } from "kubernetes-types/core/v1.js";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { VolumePluginManager } from "../plugin-manager.ts";
import type { NodeVolumeContext } from "../volume-host.ts";

/** The part of EventRecorder (api/events/recorder.ts) operations use; events concern a pod (or, for node expansion, its claim). */
export interface VolumeEventRecorder {
  event(object: Pod | PersistentVolumeClaim, type: "Normal" | "Warning", reason: string, message: string): void;
}

/** Reads a claim live and writes its status (node expansion; the kubelet's API client satisfies it). */
export interface ClaimStatusAccess {
  get(namespace: string, name: string): Promise<PersistentVolumeClaim>;
  /** Returns the claim as stored (its new resourceVersion), for the next write. */
  writeStatus(
    claim: PersistentVolumeClaim,
    status: NonNullable<PersistentVolumeClaim["status"]>,
  ): Promise<PersistentVolumeClaim>;
}

/** Reads one Node from the API server (client.nodes satisfies it); rejects with ApiError NotFound when absent. */
export interface NodeGetter {
  get(namespace: "", name: string): Promise<Node>;
}

export interface OperationContext {
  plugins: VolumePluginManager;
  recorder: VolumeEventRecorder;
  /** Live Node reads: verifySafeToDetach and VerifyControllerAttachedVolume must not trust a cache. */
  nodes: NodeGetter;
  clock: Clock;
  logger: Logger;
  /** Kubelet only: the node the operations run on. */
  node?: NodeVolumeContext;
  /**
   * Kubelet only: the node object from the kubelet's informer, for the PV node-affinity check and
   * the cheap "is it in the node's status yet" pre-check of VerifyControllerAttachedVolume.
   */
  cachedNode?: () => Node | undefined;
  /** Kubelet only: the claims whose filesystems node expansion grows. */
  claims?: ClaimStatusAccess;
}

/** Event reasons the operations emit (spec §6.2). */
export const VolumeEventReason = {
  successfulAttachVolume: "SuccessfulAttachVolume",
  failedAttachVolume: "FailedAttachVolume",
  failedMount: "FailedMount",
  failedMapVolume: "FailedMapVolume",
  successfulMountVolume: "SuccessfulMountVolume",
} as const;
