/**
 * After a restart the simulated cloud is new: the disks of the volumes provisioned before are gone
 * from it. Each PersistentVolume of a simulated disk gets a blank disk of its size and zone again,
 * so its claim can be attached and mounted (the kubelet formats it anew) instead of failing for
 * ever with "disk not found". The data written before the restart is not kept.
 *
 * A cloud disk stays attached while its machine reboots: once a node is back, the disks its Node
 * status lists as attached are attached to the fresh machine again, so its kubelet finds their
 * devices (otherwise the attach/detach controller's periodic check would notice only a minute later).
 */
import type { PersistentVolume } from "../../api/objects.ts";
import { parseQuantity } from "../../api/quantity.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import { simDiskIdOf } from "../../controllers/persistentvolume/sim-disk-provisioner.ts";
import { zoneLabel } from "../../kubelet/constants.ts";
import { simDiskPluginName } from "../../volume/plugins/simdisk/sim-disk-source.ts";

function sizeBytesOf(volume: PersistentVolume): number {
  const capacity = volume.spec?.capacity?.storage;
  return capacity === undefined ? 0 : Number(parseQuantity(capacity).toBytes());
}

/** Creates the missing disks; returns how many. */
export async function restoreSimDisks(cluster: Cluster): Promise<number> {
  let restored = 0;
  for (const volume of await cluster.list("PersistentVolume")) {
    const diskId = simDiskIdOf(volume);
    if (diskId === undefined || cluster.world.disks.has(diskId)) continue;
    const zone = volume.metadata?.labels?.[zoneLabel];
    const shared = volume.spec?.accessModes?.includes("ReadWriteMany") ?? false;
    cluster.world.disks.createDisk(diskId, sizeBytesOf(volume), {
      ...(zone === undefined ? {} : { zone }),
      multiAttach: shared,
    });
    restored++;
  }
  return restored;
}

/** Attaches to the rebooted `nodeName` the simulated disks its Node status says are attached. */
export async function reattachSimDisks(cluster: Cluster, nodeName: string): Promise<void> {
  const node = await cluster.get("Node", "", nodeName);
  const prefix = `${simDiskPluginName}/`;
  for (const attached of node.status?.volumesAttached ?? []) {
    if (!attached.name.startsWith(prefix)) continue;
    const diskId = attached.name.slice(prefix.length);
    if (cluster.world.disks.has(diskId)) await cluster.world.disks.attach(diskId, nodeName);
  }
}
