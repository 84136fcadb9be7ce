/**
 * The operation names of spec §4.1, as Kubernetes spells them. They appear in operation keys, in
 * the "already executing" and backoff messages, and separate backoff records: a failed
 * `volume_mount` does not delay an `unmount_device` of the same volume.
 */
export const OperationName = {
  attach: "volume_attach",
  detach: "volume_detach",
  verifyVolumesAreAttachedPerNode: "verify_volumes_are_attached_per_node",
  verifyVolumesAreAttached: "verify_volumes_are_attached",
  verifyControllerAttachedVolume: "verify_controller_attached_volume",
  mount: "volume_mount",
  unmount: "volume_unmount",
  unmountDevice: "unmount_device",
  map: "map_volume",
  unmap: "unmap_volume",
  unmapDevice: "unmap_device",
  expand: "expand_volume",
  fsResize: "volume_fs_resize",
} as const;

export type OperationName = (typeof OperationName)[keyof typeof OperationName];
