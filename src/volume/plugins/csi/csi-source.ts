/**
 * What the kubelet CSI plugin reads from a volume spec: the PV's `spec.csi` source, the access mode
 * it announces to the driver (the first of the PV, ReadWriteOnce when none), and whether the volume
 * is read-only (the pod's claim reference or the source says so); and what NodePublishVolume needs of
 * a persistent or an inline volume.
 */
import type { CSIPersistentVolumeSource, Pod, SecretReference } from "kubernetes-types/core/v1.js";
import type { AccessMode, VolumeSpec } from "../../spec.ts";
import { csiMessagePrefix, ephemeralLifecycleMode, persistentLifecycleMode } from "./csi-constants.ts";
import { csiInlineSource, ephemeralVolumeHandle } from "./csi-ephemeral.ts";

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
  return spec.readOnly || spec.persistentVolume?.spec?.csi?.readOnly === true || spec.volume?.csi?.readOnly === true;
}

/** What NodePublishVolume needs of a volume, persistent or inline (csi_mounter.go SetUpAt). */
export interface CsiPublishSource {
  driver: string;
  volumeHandle: string;
  lifecycleMode: string;
  volumeAttributes: Readonly<Record<string, string>> | undefined;
  nodePublishSecretRef: SecretReference | undefined;
  fsType: string;
}

/**
 * The publish source of a spec. An inline volume's id is made from the pod UID and volume name, and
 * its secret is looked up in the pod's namespace.
 */
export function csiPublishSource(spec: VolumeSpec, pod: Pod): CsiPublishSource {
  const inline = csiInlineSource(spec);
  if (inline === undefined) {
    const source = csiPersistentSource(spec);
    return {
      driver: source.driver,
      volumeHandle: source.volumeHandle,
      lifecycleMode: persistentLifecycleMode,
      volumeAttributes: source.volumeAttributes,
      nodePublishSecretRef: source.nodePublishSecretRef,
      fsType: source.fsType ?? "",
    };
  }
  const secretName = inline.nodePublishSecretRef?.name;
  return {
    driver: inline.driver,
    volumeHandle: ephemeralVolumeHandle(pod.metadata?.uid ?? "", spec.name()),
    lifecycleMode: ephemeralLifecycleMode,
    volumeAttributes: inline.volumeAttributes,
    nodePublishSecretRef:
      secretName === undefined ? undefined : { name: secretName, namespace: pod.metadata?.namespace ?? "" },
    fsType: inline.fsType ?? "",
  };
}
