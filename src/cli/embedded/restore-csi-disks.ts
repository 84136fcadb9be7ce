/**
 * The disk.csi.kvol.io side of `restore-sim-disks.ts`: after a restart the simulated cloud is new,
 * so each PersistentVolume of the driver gets a blank disk again under its volume handle (its size,
 * its zone from the PV's topology, multi-attach for ReadWriteMany), and once a node is back the
 * disks its Node status lists as attached through CSI are attached to it again, so the kubelet finds
 * the devices the VolumeAttachments promise. The data written before the restart is not kept.
 */
import type { PersistentVolume } from "../../api/objects.ts";
import { parseQuantity } from "../../api/quantity.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import { diskDefaultZone, diskDriverName, diskTopologyKey } from "../../csi/drivers/common/constants.ts";
import { csiPluginName } from "../../volume/paths.ts";
import { csiVolumeNameSeparator } from "../../volume/plugins/csi/csi-attacher.ts";

function sizeBytesOf(volume: PersistentVolume): number {
  const capacity = volume.spec?.capacity?.storage;
  return capacity === undefined ? 0 : Number(parseQuantity(capacity).toBytes());
}

/** The zone the PV's node affinity names under the driver's topology key, if it is a real one. */
function zoneOf(volume: PersistentVolume): string | undefined {
  for (const term of volume.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? []) {
    for (const expression of term.matchExpressions ?? []) {
      const zone = expression.key === diskTopologyKey ? expression.values?.[0] : undefined;
      if (zone !== undefined && zone !== diskDefaultZone) return zone;
    }
  }
  return undefined;
}

/** Creates the missing disks of disk.csi.kvol.io volumes; returns how many. */
export async function restoreCsiDisks(cluster: Cluster): Promise<number> {
  let restored = 0;
  for (const volume of await cluster.list("PersistentVolume")) {
    const csi = volume.spec?.csi;
    if (csi?.driver !== diskDriverName || cluster.world.disks.has(csi.volumeHandle)) continue;
    const sizeBytes = sizeBytesOf(volume);
    if (sizeBytes <= 0) continue;
    const zone = zoneOf(volume);
    cluster.world.disks.createDisk(csi.volumeHandle, sizeBytes, {
      ...(zone === undefined ? {} : { zone }),
      multiAttach: volume.spec?.accessModes?.includes("ReadWriteMany") ?? false,
    });
    restored++;
  }
  return restored;
}

/** Attaches to the rebooted `nodeName` the disk.csi.kvol.io disks its Node status says are attached. */
export async function reattachCsiDisks(cluster: Cluster, nodeName: string): Promise<void> {
  const node = await cluster.get("Node", "", nodeName);
  const prefix = `${csiPluginName}/${diskDriverName}${csiVolumeNameSeparator}`;
  for (const attached of node.status?.volumesAttached ?? []) {
    if (!attached.name.startsWith(prefix)) continue;
    const diskId = attached.name.slice(prefix.length);
    if (cluster.world.disks.has(diskId)) await cluster.world.disks.attach(diskId, nodeName);
  }
}
