/**
 * What a simulated node reaches outside itself: the clock and random stream, and the shared world
 * (NFS servers, the RBD cluster, object-store buckets, the disk provider). The world implements it;
 * a node only sees this interface, so the kernel model does not depend on how the world is built.
 */
import type { Clock } from "../../runtime/clock.ts";
import type { Rng } from "../../runtime/rng.ts";
import type { SimFilesystem } from "./filesystem.ts";
import type { CloudDisk } from "./world/disk-provider.ts";
import type { NfsServer } from "./world/nfs-server.ts";
import type { RbdCluster } from "./world/rbd-cluster.ts";

export interface NodeEnvironment {
  readonly clock: Clock;
  readonly rng: Rng;
  readonly rbd: RbdCluster;
  nfsServer(address: string): NfsServer | undefined;
  /** An object-store bucket, served on a node by a FUSE daemon (s3fs). */
  bucket(name: string): SimFilesystem | undefined;
  /** Disks the provider has attached to this node, plugged in again at every boot. */
  disksAttachedTo(nodeName: string): Array<{ disk: CloudDisk; readOnly: boolean }>;
  /** Whether the storage backends refuse this node's I/O (it is fenced): its disk I/O fails with EIO. */
  isStorageFenced(nodeName: string): boolean;
}
