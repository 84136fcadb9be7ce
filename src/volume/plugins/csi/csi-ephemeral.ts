/**
 * Inline (ephemeral) CSI volumes, `pod.spec.volumes[].csi` (csi_mounter.go, csi_plugin.go): no
 * attach, no stage; the kubelet names the volume itself, `csi-<hex sha256 of pod UID + volume name>`
 * (makeVolumeHandle), so the name is stable across kubelet restarts and unique per pod volume.
 */
import { createHash } from "node:crypto";
import type { CSIVolumeSource } from "kubernetes-types/core/v1.js";
import type { VolumeSpec } from "../../spec.ts";

/** The volume id the kubelet sends for an inline volume. */
export function ephemeralVolumeHandle(podUID: string, specName: string): string {
  return `csi-${createHash("sha256").update(`${podUID}${specName}`).digest("hex")}`;
}

/** The pod's inline CSI source, when the spec is one. */
export function csiInlineSource(spec: VolumeSpec): CSIVolumeSource | undefined {
  return spec.volume?.csi;
}
