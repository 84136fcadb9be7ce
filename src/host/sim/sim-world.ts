/**
 * SimWorld: the outside world of one simulated datacenter, shared by its nodes — NFS servers, a
 * Ceph-like RBD cluster, object-store buckets (served on nodes by FUSE daemons), and a cloud
 * provider's attachable disks. Nodes are SimHosts created here, so a disk attached to a node shows
 * up in that node's kernel, and data written on one node is what the next node reads.
 *
 * Everything is deterministic: time comes from the Clock given (latencies, watch timeouts), every
 * random choice (scope numbers, UUIDs, RBD nonces) from the Rng given, one named stream per node.
 */
import type { Clock } from "../../runtime/clock.ts";
import type { Rng } from "../../runtime/rng.ts";
import { SimFilesystem } from "./filesystem.ts";
import type { NodeEnvironment } from "./node-environment.ts";
import { defaultInstalledCommands } from "./sim-commands.ts";
import { nodeMemoryDefaultBytes, rbdWatcherTimeoutDefaultMs } from "./sim-constants.ts";
import { SimHost } from "./sim-host.ts";
import type { SystemdMode, UtilLinuxVersion } from "./sim-kernel.ts";
import { type CloudDisk, CloudDiskError, CloudDiskProvider } from "./world/disk-provider.ts";
import { NfsServer } from "./world/nfs-server.ts";
import { RbdCluster } from "./world/rbd-cluster.ts";

export interface SimNodeOptions {
  /** The node's IP address (NFS clientaddr, RBD watcher address); 10.0.x.y by default. */
  address?: string;
  /** Its topology zone; a disk from another zone cannot be attached. */
  zone?: string;
  memoryBytes?: number;
  /** systemd as PID 1 (default), installed but not PID 1 (kubelet in a container), or absent. */
  systemd?: SystemdMode;
  /** Wording of mount/umount errors: "2.23" (default, CentOS 7, seed 002) or "2.38". */
  utilLinux?: UtilLinuxVersion;
  /** Binaries this node lacks (`mount.nfs` without nfs-utils, `rbd` without ceph-common). */
  withoutCommands?: readonly string[];
}

export interface SimWorldOptions {
  /** How long a dead node's RBD watch lingers (Ceph's osd_client_watch_timeout). */
  rbdWatcherTimeoutMs?: number;
  rbdMonitors?: readonly string[];
}

/** First host number of the default node addresses (10.0.0.10, 10.0.0.11, …). */
const firstNodeHostNumber = 10;
const hostsPerSubnet = 240;
const defaultRbdMonitors = ["10.0.255.1:6789"];

export class SimWorld {
  readonly rbd: RbdCluster;
  readonly disks: CloudDiskProvider;
  private readonly nodes = new Map<string, SimHost>();
  private readonly nfsServers = new Map<string, NfsServer>();
  private readonly buckets = new Map<string, SimFilesystem>();
  private readonly storageFencedNodes = new Set<string>();

  constructor(
    readonly clock: Clock,
    readonly rng: Rng,
    options: SimWorldOptions = {},
  ) {
    this.rbd = new RbdCluster(
      clock,
      options.rbdWatcherTimeoutMs ?? rbdWatcherTimeoutDefaultMs,
      options.rbdMonitors ?? defaultRbdMonitors,
    );
    this.disks = new CloudDiskProvider(clock, {
      zoneOf: (nodeName) => this.node(nodeName).options.zone,
      plug: (nodeName, disk, readOnly) => this.node(nodeName).plugDisk(disk, readOnly),
      unplug: (nodeName, disk) => this.node(nodeName).unplugDisk(disk),
    });
  }

  addNode(name: string, options: SimNodeOptions = {}): SimHost {
    if (this.nodes.has(name)) throw new Error(`addNode: a node named ${name} already exists`);
    const systemd = options.systemd ?? "pid1";
    const without = new Set(options.withoutCommands ?? []);
    const installed = defaultInstalledCommands(systemd !== "absent").filter((command) => !without.has(command));
    const host = new SimHost(
      name,
      {
        address: options.address ?? this.defaultAddress(this.nodes.size),
        zone: options.zone,
        memoryBytes: options.memoryBytes ?? nodeMemoryDefaultBytes,
        systemd,
        utilLinux: options.utilLinux ?? "2.23",
      },
      this.environmentFor(name),
      installed,
    );
    this.nodes.set(name, host);
    return host;
  }

  /** The node named `name`; throws CloudDiskError NodeNotFound (the provider's view) when there is none. */
  node(name: string): SimHost {
    const host = this.nodes.get(name);
    if (host === undefined) throw new CloudDiskError("NodeNotFound", `node ${name} does not exist`);
    return host;
  }

  nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  addNfsServer(address: string): NfsServer {
    if (this.nfsServers.has(address)) throw new Error(`addNfsServer: ${address} already exists`);
    const server = new NfsServer(address);
    this.nfsServers.set(address, server);
    return server;
  }

  /** Every NFS server's address, in the order they were added. */
  nfsServerAddresses(): string[] {
    return [...this.nfsServers.keys()];
  }

  nfsServer(address: string): NfsServer | undefined {
    return this.nfsServers.get(address);
  }

  /** The server stops (false) or resumes (true) answering; hard mounts and mounts in progress wait meanwhile. */
  setNfsReachable(address: string, reachable: boolean): void {
    this.requireNfsServer(address).setReachable(reachable);
  }

  /** The export holding `path` is recreated on the server: existing mounts of it fail with ESTALE. */
  makeNfsStale(address: string, path: string): void {
    this.requireNfsServer(address).makeStale(path);
  }

  createBucket(name: string): SimFilesystem {
    if (this.buckets.has(name)) throw new Error(`createBucket: bucket ${name} already exists`);
    const bucket = new SimFilesystem();
    this.buckets.set(name, bucket);
    return bucket;
  }

  bucket(name: string): SimFilesystem | undefined {
    return this.buckets.get(name);
  }

  /**
   * Fences a node from the RBD cluster (`ceph osd blocklist add` of its clients): its watches go at
   * once and its RBD I/O fails with EIO until it reboots with a new client.
   */
  fenceNode(name: string): void {
    const clients = new Set(this.rbd.clientsOf(name));
    const current = this.node(name).rbdClient();
    if (current !== undefined) clients.add(current);
    for (const client of clients) this.rbd.fence(client);
  }

  /**
   * Fences a node at every storage backend, as an operator or a fencing agent does before moving
   * its RWO volumes: the RBD cluster blocklists the node's address (every client from it, also
   * after a reboot) and the disk provider refuses its I/O, so reads and writes on its RBD images and
   * cloud disks fail with EIO until `unfenceNodeStorage`. Attachments and mounts stay as they are.
   */
  fenceNodeStorage(name: string): void {
    const host = this.node(name);
    this.storageFencedNodes.add(name);
    this.rbd.blockAddress(host.options.address);
  }

  /** Lifts `fenceNodeStorage`: the node's storage I/O works again. */
  unfenceNodeStorage(name: string): void {
    const host = this.node(name);
    this.storageFencedNodes.delete(name);
    this.rbd.unblockAddress(host.options.address);
  }

  isStorageFenced(name: string): boolean {
    return this.storageFencedNodes.has(name);
  }

  disksAttachedTo(nodeName: string): Array<{ disk: CloudDisk; readOnly: boolean }> {
    return this.disks.attachedTo(nodeName);
  }

  private environmentFor(nodeName: string): NodeEnvironment {
    return {
      clock: this.clock,
      rng: this.rng.stream(`host/${nodeName}`),
      rbd: this.rbd,
      nfsServer: (address) => this.nfsServer(address),
      bucket: (name) => this.bucket(name),
      disksAttachedTo: (name) => this.disksAttachedTo(name),
      isStorageFenced: (name) => this.isStorageFenced(name),
    };
  }

  private requireNfsServer(address: string): NfsServer {
    const server = this.nfsServers.get(address);
    if (server === undefined) throw new Error(`no NFS server at ${address}; add it with addNfsServer first`);
    return server;
  }

  private defaultAddress(index: number): string {
    return `10.0.${Math.floor(index / hostsPerSubnet)}.${firstNodeHostNumber + (index % hostsPerSubnet)}`;
  }
}
