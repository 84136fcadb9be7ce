/**
 * Which pod volumes the containers actually use (Kubernetes' util.GetPodVolumeNames). Only these are
 * attached and mounted: a volume listed in `pod.spec.volumes` that no container mounts is skipped,
 * and WaitForAttachAndMount waits for exactly these.
 */
import type { Container, EphemeralContainer, Pod } from "kubernetes-types/core/v1.js";

export interface PodVolumeNames {
  /** Volumes named in some container's `volumeMounts` (filesystem use). */
  mounts: ReadonlySet<string>;
  /** Volumes named in some container's `volumeDevices` (raw block use). */
  devices: ReadonlySet<string>;
}

/** Init, regular and ephemeral containers: every container that can start in the pod. */
function allContainers(pod: Pod): ReadonlyArray<Container | EphemeralContainer> {
  const spec = pod.spec;
  if (spec === undefined) return [];
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
}

export function podVolumeNames(pod: Pod): PodVolumeNames {
  const mounts = new Set<string>();
  const devices = new Set<string>();
  for (const container of allContainers(pod)) {
    for (const mount of container.volumeMounts ?? []) mounts.add(mount.name);
    for (const device of container.volumeDevices ?? []) devices.add(device.name);
  }
  return { mounts, devices };
}

/** The volume names WaitForAttachAndMount waits for: used as mounts or as devices, sorted. */
export function expectedVolumeNames(pod: Pod): string[] {
  const { mounts, devices } = podVolumeNames(pod);
  return [...new Set([...mounts, ...devices])].sort();
}
