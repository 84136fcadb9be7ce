/**
 * A Ceph-like RBD cluster: pools of images, each a BlockStorage, and the watchers `rbd status` lists.
 * A node that maps an image becomes a watcher through its kernel client (one client instance per
 * node per boot: `<node ip>:0/<nonce> client.<id>`). When the node dies its watch lingers until
 * Ceph's watch timeout, or until the client is fenced (blocklisted) — the reason a replacement pod
 * cannot map an RWO image right after its node died (seed 004).
 */
import type { Clock } from "../../../runtime/clock.ts";
import { BlockStorage } from "../block-storage.ts";
import { firstRbdClientId } from "../sim-constants.ts";

export interface RbdClientInstance {
  readonly nodeName: string;
  /** `10.0.0.5:0/3141592653`: node address plus a per-boot nonce. */
  readonly address: string;
  readonly clientId: number;
}

interface RbdWatcher {
  readonly client: RbdClientInstance;
  readonly cookie: number;
}

export class RbdImage {
  readonly watchers: RbdWatcher[] = [];
  constructor(
    readonly pool: string,
    readonly name: string,
    readonly storage: BlockStorage,
  ) {}
}

export class RbdCluster {
  private readonly images = new Map<string, RbdImage>();
  private readonly blocklist = new Set<string>();
  /** Whole addresses blocklisted (`ceph osd blocklist add 10.0.0.5`): every client from there, now and later. */
  private readonly blockedAddresses = new Set<string>();
  private nextCookie = 1;
  private nextClientId = firstRbdClientId;

  constructor(
    private readonly clock: Clock,
    /** How long a dead client's watch lingers (osd_client_watch_timeout). */
    readonly watcherTimeoutMs: number,
    /** Monitor addresses; `rbd -m` must name one of them. */
    readonly monitors: readonly string[],
  ) {}

  createImage(pool: string, name: string, sizeBytes: number): RbdImage {
    const key = imageKey(pool, name);
    if (this.images.has(key)) throw new Error(`rbd image ${key} already exists`);
    const image = new RbdImage(pool, name, new BlockStorage(sizeBytes));
    this.images.set(key, image);
    return image;
  }

  image(pool: string, name: string): RbdImage | undefined {
    return this.images.get(imageKey(pool, name));
  }

  /** `rbd rm`: refused while the image has watchers, as Ceph does. */
  deleteImage(pool: string, name: string): void {
    const image = this.image(pool, name);
    if (image === undefined) throw new Error(`rbd image ${imageKey(pool, name)} does not exist`);
    if (image.watchers.length > 0) throw new Error(`rbd image ${imageKey(pool, name)} still has watchers`);
    this.images.delete(imageKey(pool, name));
  }

  /** A node's kernel client connecting for the first time this boot. */
  connect(nodeName: string, nodeAddress: string, nonce: number): RbdClientInstance {
    return { nodeName, address: `${nodeAddress}:0/${nonce}`, clientId: this.nextClientId++ };
  }

  watch(image: RbdImage, client: RbdClientInstance): RbdWatcher {
    const watcher: RbdWatcher = { client, cookie: this.nextCookie++ };
    image.watchers.push(watcher);
    return watcher;
  }

  unwatch(image: RbdImage, client: RbdClientInstance): void {
    const index = image.watchers.findIndex((watcher) => watcher.client === client);
    if (index >= 0) image.watchers.splice(index, 1);
  }

  /**
   * A client stopped pinging (its node powered off, crashed or rebooted): its watches expire after
   * the watch timeout, unless it is fenced first.
   */
  clientLost(client: RbdClientInstance): void {
    this.clock.setTimer(this.watcherTimeoutMs, () => this.dropWatches(client));
  }

  /** `ceph osd blocklist add`: the client's watches go at once and its I/O fails from now on. */
  fence(client: RbdClientInstance): void {
    this.blocklist.add(client.address);
    this.dropWatches(client);
  }

  unfence(client: RbdClientInstance): void {
    this.blocklist.delete(client.address);
  }

  isFenced(client: RbdClientInstance): boolean {
    return this.blocklist.has(client.address) || this.blockedAddresses.has(hostOf(client.address));
  }

  /**
   * `ceph osd blocklist add <ip>`: every client of that node address, including those it connects
   * after a reboot, loses its watches and its I/O until `unblockAddress`.
   */
  blockAddress(nodeAddress: string): void {
    this.blockedAddresses.add(nodeAddress);
    for (const image of this.images.values()) {
      const kept = image.watchers.filter((watcher) => hostOf(watcher.client.address) !== nodeAddress);
      image.watchers.splice(0, image.watchers.length, ...kept);
    }
  }

  /** `ceph osd blocklist rm <ip>`. */
  unblockAddress(nodeAddress: string): void {
    this.blockedAddresses.delete(nodeAddress);
  }

  /** Every watch held by one node's clients, for fencing a whole node. */
  clientsOf(nodeName: string): RbdClientInstance[] {
    const clients = new Set<RbdClientInstance>();
    for (const image of this.images.values()) {
      for (const watcher of image.watchers) if (watcher.client.nodeName === nodeName) clients.add(watcher.client);
    }
    return [...clients];
  }

  private dropWatches(client: RbdClientInstance): void {
    for (const image of this.images.values()) {
      const kept = image.watchers.filter((watcher) => watcher.client !== client);
      image.watchers.splice(0, image.watchers.length, ...kept);
    }
  }
}

/** `10.0.0.5` of a client address `10.0.0.5:0/3141592653`. */
function hostOf(clientAddress: string): string {
  return clientAddress.split(":")[0] ?? clientAddress;
}

function imageKey(pool: string, name: string): string {
  return `${pool}/${name}`;
}
