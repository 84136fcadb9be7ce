/** How each kind of request is named in messages (the spec name plus the detailed-form suffix). */
import type { AttachedVolume, MountedVolume, VolumeToMount } from "./types.ts";
import { attachedDetails, podVolumeDetails, type VolumeMessageSubject } from "./volume-messages.ts";

export function mountSubject(volume: VolumeToMount): VolumeMessageSubject {
  return {
    specName: volume.volumeSpec.name(),
    details: podVolumeDetails(volume.volumeName, volume.pod.metadata?.name ?? volume.podName, volume.podName),
  };
}

export function mountedSubject(volume: MountedVolume): VolumeMessageSubject {
  return {
    specName: volume.innerVolumeSpecName,
    details: podVolumeDetails(volume.volumeName, volume.podDisplayName ?? volume.podUID, volume.podUID),
  };
}

export function attachedSubject(volume: AttachedVolume): VolumeMessageSubject {
  return {
    specName: volume.volumeSpec?.name() ?? volume.volumeName,
    details: attachedDetails(volume.volumeName, volume.nodeName),
  };
}
