/** Faults of NFS servers: one that stops answering, and an export recreated under its clients. */
import type { FaultDefinition, FaultParam, FaultParams } from "./fault.ts";
import { FaultArgs } from "./fault-args.ts";
import { requireNfsServer } from "./fault-targets.ts";
import { nfsMountRetry, podAttachAndMountTimeout } from "./reaction-timings.ts";

const serverParam: FaultParam = {
  name: "server",
  type: "string",
  required: true,
  description: "The NFS server's address, as volumes name it (`nfs.server`).",
};

export const nfsServerDown: FaultDefinition = {
  name: "nfs-server-down",
  models:
    "An NFS server stops answering (crash, network loss, failover in progress); clients' hard mounts wait for it " +
    "instead of failing.",
  kubernetesReaction:
    "I/O on existing mounts hangs, so containers using them hang, and unmounting hangs too, so deleted pods stay " +
    "Terminating. A new mount hangs in `mount -t nfs` until mount.nfs gives up after its retry time " +
    `(${nfsMountRetry}): Warning FailedMount \`MountVolume.SetUp failed for volume "<name>" : mount failed: exit ` +
    "status 32` with `Output: … mount.nfs: Connection timed out`, retried with backoff; at " +
    `${podAttachAndMountTimeout} the kubelet adds \`Unable to attach or mount volumes: unmounted volumes=[<name>], ` +
    "unattached volumes=[], failed to process volumes=[]: timed out waiting for the condition` and the pod stays " +
    "ContainerCreating.",
  healing:
    "The server answers again: the waiting mounts, I/O and unmounts complete, and pods start or finish terminating.",
  params: [serverParam],
  async inject(cluster, params) {
    const args = new FaultArgs(nfsServerDown, params);
    const server = args.string("server");
    requireNfsServer(cluster, args, server);
    cluster.world.setNfsReachable(server, false);
  },
  async heal(cluster, params) {
    const args = new FaultArgs(nfsServerDown, params);
    const server = args.string("server");
    requireNfsServer(cluster, args, server);
    cluster.world.setNfsReachable(server, true);
  },
  targets: async (cluster) =>
    cluster.world
      .nfsServerAddresses()
      .filter((server) => cluster.world.nfsServer(server)?.reachable === true)
      .map((server) => ({ server })),
};

export const nfsStaleHandle: FaultDefinition = {
  name: "nfs-stale-handle",
  models:
    "An NFS export is recreated on the server (restored from backup, re-created directory, failover to a server " +
    "with other file handles): handles held by existing mounts no longer resolve.",
  kubernetesReaction:
    "Every access through an existing mount fails with ESTALE (`Stale file handle`); containers get I/O errors and " +
    "the kubelet does not remount on its own. mount-utils counts ESTALE as a corrupted mount, so when the pod is " +
    "deleted its teardown unmounts without a mount-point check and succeeds; the replacement pod gets a fresh mount " +
    "that works.",
  params: [
    serverParam,
    {
      name: "export",
      type: "string",
      required: true,
      description: "The exported path that is recreated (`/exports/data`).",
    },
  ],
  async inject(cluster, params) {
    const args = new FaultArgs(nfsStaleHandle, params);
    const server = args.string("server");
    const exportPath = args.string("export");
    requireNfsServer(cluster, args, server);
    const exports = cluster.world.nfsServer(server)?.exportPaths() ?? [];
    if (!exportPath.startsWith("/") || cluster.world.nfsServer(server)?.resolve(exportPath) === undefined) {
      throw args.error(
        `NFS server "${server}" does not export "${exportPath}" (exports: ${exports.join(", ") || "none"})`,
      );
    }
    cluster.world.makeNfsStale(server, exportPath);
  },
  targets: async (cluster) =>
    cluster.world
      .nfsServerAddresses()
      .flatMap((server): FaultParams[] =>
        (cluster.world.nfsServer(server)?.exportPaths() ?? []).map((exportPath) => ({ server, export: exportPath })),
      ),
};
