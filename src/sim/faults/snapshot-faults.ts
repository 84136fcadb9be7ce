/** Faults of the cloud provider's snapshots: a snapshot that stays not ready (a stuck upload). */
import type { FaultDefinition } from "./fault.ts";

export const snapshotStuckNotReady: FaultDefinition = {
  name: "snapshot-stuck-not-ready",
  models:
    "The storage system cuts snapshots but never finishes processing them (an upload to object storage that hangs), " +
    "so CreateSnapshot keeps answering ready_to_use=false.",
  kubernetesReaction:
    "The VolumeSnapshot and its VolumeSnapshotContent show READYTOUSE false; the csi-snapshotter sidecar repeats the " +
    "same CreateSnapshot with backoff (1 s doubling to 5 min) and sets no error. A claim restored from the snapshot " +
    'stays Pending with Warning ProvisioningFailed `failed to provision volume with StorageClass "<class>": ' +
    "snapshot <name> is not Ready`, retried by the external-provisioner.",
  healing:
    "The provider finishes its snapshots: the next CreateSnapshot answers ready, the snapshot becomes ready to use.",
  params: [],
  async inject(cluster) {
    cluster.world.disks.snapshotsStuckNotReady = true;
  },
  async heal(cluster) {
    cluster.world.disks.snapshotsStuckNotReady = false;
  },
  targets: async (cluster) => (cluster.world.disks.ids().length > 0 ? [{}] : []),
};
