/**
 * What the kubelet CSI plugin reads from a volume spec: the PV's `spec.csi` source, the access mode
 * it announces to the driver (the first of the PV, ReadWriteOnce when none), and whether the volume
 * is read-only (the pod's claim reference or the source says so).
 */
import type { CSIPersistentVolumeSource } from "kubernetes-types/core/v1.js";
import type { AccessMode, VolumeSpec } from "../../spec.ts";
import { csiMessagePrefix } from "./csi-constants.ts";

const defaultAccessMode: AccessMode = "ReadWriteOnce";

/** The PV's CSI source, or an error naming the spec (only CSI persistent volumes are handled). */
export function csiPersistentSource(spec: VolumeSpec): CSIPersistentVolumeSource {
  const source = spec.persistentVolume?.spec?.csi;
  if (source === undefined) {
    throw new Error(`${csiMessagePrefix}volume "${spec.name()}" is not a CSI persistent volume (spec.csi is not set)`);
  }
  return source;
}

/** Kubernetes maps only the first PV access mode to the CSI request. */
export function csiAccessModeOf(spec: VolumeSpec): AccessMode {
  return spec.accessModes()[0] ?? defaultAccessMode;
}

export function csiReadOnlyOf(spec: VolumeSpec): boolean {
  return spec.readOnly || spec.persistentVolume?.spec?.csi?.readOnly === true;
}
