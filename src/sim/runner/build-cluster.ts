/**
 * Starts the cluster a scenario describes: storage backends first (so a PV can name them), then
 * the nodes in the order listed (each with its kubelet and CSI node plugins), then the
 * StorageClasses. Test-only cluster flags come through `clusterOptions`.
 */
import type { KObject } from "../../api/objects.ts";
import { Cluster, type ClusterOptions } from "../../cmd/cluster.ts";
import type { ClusterSpec, NodeSpec } from "../scenario/model.ts";

export async function startScenarioCluster(
  spec: ClusterSpec,
  seed: number,
  clusterOptions: Partial<ClusterOptions> = {},
): Promise<Cluster> {
  const cluster = await Cluster.start({
    ...clusterOptions,
    seed,
    timers: { ...spec.timers, ...clusterOptions.timers },
    csiDrivers: [...spec.csiDrivers, ...(clusterOptions.csiDrivers ?? [])],
    ...(spec.fenceAfterMs === undefined
      ? {}
      : { fencing: { ...clusterOptions.fencing, fenceAfterMs: spec.fenceAfterMs } }),
  });
  createStorage(cluster, spec);
  for (const node of spec.nodes) await addScenarioNode(cluster, node);
  if (spec.storageClasses.length > 0) await cluster.apply(spec.storageClasses as unknown as KObject[]);
  return cluster;
}

export async function addScenarioNode(cluster: Cluster, { name, ...options }: NodeSpec): Promise<void> {
  await cluster.addNode(name, options);
}

function createStorage(cluster: Cluster, spec: ClusterSpec): void {
  const { world } = cluster;
  for (const { server, exports } of spec.storage.nfs) {
    const nfs = world.addNfsServer(server);
    for (const nfsExport of exports) {
      nfs.addExport(nfsExport.path, nfsExport.sizeBytes === undefined ? {} : { sizeLimitBytes: nfsExport.sizeBytes });
    }
  }
  for (const { pool, image, sizeBytes } of spec.storage.rbdImages) world.rbd.createImage(pool, image, sizeBytes);
  for (const disk of spec.storage.disks) {
    world.disks.createDisk(disk.id, disk.sizeBytes, {
      ...(disk.zone === undefined ? {} : { zone: disk.zone }),
      ...(disk.multiAttach === undefined ? {} : { multiAttach: disk.multiAttach }),
    });
  }
  for (const bucket of spec.storage.buckets) world.createBucket(bucket);
}
