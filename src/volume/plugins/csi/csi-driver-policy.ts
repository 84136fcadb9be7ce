/**
 * What the CSIDriver object of a driver decides for the kubelet (csi_plugin.go skipAttach,
 * podInfoEnabled; csi_mounter.go supportsVolumeLifecycleMode), read from the informer cache. The
 * CSIDriver object is optional: without one a driver needs attaching, gets no pod information and
 * serves persistent volumes only.
 */
import type { CSIDriver, VolumeAttachment } from "kubernetes-types/storage/v1.js";
import { goQuote } from "../../../runtime/go-quote.ts";
import { persistentLifecycleMode } from "./csi-constants.ts";

/** The API reads of the kubelet's CSI plugin (informer cache for CSIDriver, live GET for VolumeAttachment). */
export interface CsiPluginApi {
  /** The informer's CSIDriver, or undefined when the driver has none. */
  cachedCsiDriver(name: string): CSIDriver | undefined;
  /** A live read; rejects with ApiError NotFound when absent. */
  getVolumeAttachment(name: string): Promise<VolumeAttachment>;
}

/** `attachRequired: false` skips attaching; a missing CSIDriver (or field) means attach is required. */
export function driverSkipsAttach(api: CsiPluginApi, driverName: string): boolean {
  return api.cachedCsiDriver(driverName)?.spec?.attachRequired === false;
}

/** CSIDriver `podInfoOnMount: true` adds the pod's name, namespace, UID and service account to the volume context. */
export function driverWantsPodInfo(api: CsiPluginApi, driverName: string): boolean {
  return api.cachedCsiDriver(driverName)?.spec?.podInfoOnMount === true;
}

/** Fails when the CSIDriver does not list `mode` in `volumeLifecycleModes` (default `["Persistent"]`). */
export function checkLifecycleModeSupported(api: CsiPluginApi, driverName: string, mode: string): void {
  const driver = api.cachedCsiDriver(driverName);
  if (driver === undefined) {
    if (mode === persistentLifecycleMode) return;
    throw new Error(`volume mode ${goQuote(mode)} not supported by driver ${driverName} (no CSIDriver object)`);
  }
  const modes = driver.spec?.volumeLifecycleModes ?? [];
  const effective = modes.length === 0 ? [persistentLifecycleMode] : modes;
  if (effective.includes(mode)) return;
  throw new Error(
    `volume mode ${goQuote(mode)} not supported by driver ${driverName} (only supports [${effective.map(goQuote).join(" ")}])`,
  );
}
