/**
 * Feeds the world side of an ObjectHistory. The simulated world has no watch, so after every step
 * the checker asks this to compare what it sees with what it saw last time and record what changed:
 * disk attachments (under `disk/<id>`), RBD mappings (under `rbd/<pool>/<image>`), power and boots,
 * and mounts under the kubelet root (under `node/<name>`, and under the storage they live on).
 */
import type { SimWorld } from "../../host/sim/sim-world.ts";
import type { Clock } from "../../runtime/clock.ts";
import { kubeletRootDir } from "./constants.ts";
import type { ObjectHistory } from "./object-history.ts";
import { identityOfDevice, identityOfMount, nodeNameKey } from "./world-storage.ts";

const kubeletRootPrefix = `${kubeletRootDir}/`;

interface MountSeen {
  readonly text: string;
  readonly storageKey: string | undefined;
}

interface NodeSeen {
  poweredOn: boolean;
  bootCount: number;
  mounts: Map<number, MountSeen>;
}

export class WorldHistory {
  private readonly attachmentsSeen = new Map<string, string>();
  private readonly mappingsSeen = new Map<string, string>();
  private readonly nodesSeen = new Map<string, NodeSeen>();

  constructor(
    private readonly world: SimWorld,
    private readonly clock: Clock,
    private readonly history: ObjectHistory,
  ) {}

  /** Records every change since the last call. */
  observe(): void {
    const atMs = this.clock.now();
    this.observeAttachments(atMs);
    const mappings = new Map<string, string[]>();
    for (const name of this.world.nodeNames()) this.observeNode(name, atMs, mappings);
    this.observeMappings(atMs, mappings);
  }

  private observeAttachments(atMs: number): void {
    const current = new Map<string, string>();
    for (const disk of this.world.disks.list()) {
      const text = [...disk.attachments.values()]
        .map((attachment) => `${attachment.nodeName} ${attachment.readOnly ? "ro" : "rw"} ${attachment.state}`)
        .join(", ");
      current.set(`disk/${disk.id}`, text);
    }
    recordChanges(this.attachmentsSeen, current, (key, text) =>
      this.history.record(key, atMs, text === undefined ? "deleted" : `attachments: [${text}]`),
    );
  }

  private observeMappings(atMs: number, current: Map<string, string[]>): void {
    const texts = new Map([...current].map(([key, mappings]) => [key, mappings.join(", ")]));
    recordChanges(this.mappingsSeen, texts, (key, text) =>
      this.history.record(key, atMs, `mapped on: [${text ?? ""}]`),
    );
  }

  private observeNode(name: string, atMs: number, mappings: Map<string, string[]>): void {
    const host = this.world.node(name);
    const key = nodeNameKey(name);
    const seen = this.nodesSeen.get(name) ?? { poweredOn: false, bootCount: 0, mounts: new Map() };
    this.nodesSeen.set(name, seen);
    if (seen.poweredOn && !host.poweredOn) this.history.record(key, atMs, "powered off");
    if (host.poweredOn && host.bootCount !== seen.bootCount) {
      this.history.record(key, atMs, `booted (boot ${host.bootCount})`);
      seen.mounts = new Map();
    }
    seen.poweredOn = host.poweredOn;
    seen.bootCount = host.bootCount;
    if (!host.poweredOn) return;
    this.observeMounts(name, seen, atMs);
    for (const device of host.blockDevices()) {
      if (device.kind !== "rbd") continue;
      const storageKey = identityOfDevice(device)?.key;
      if (storageKey === undefined) continue;
      const list = mappings.get(storageKey) ?? [];
      list.push(`${name} ${device.path} ${device.readOnly ? "ro" : "rw"}`);
      mappings.set(storageKey, list);
    }
  }

  private observeMounts(name: string, seen: NodeSeen, atMs: number): void {
    const key = nodeNameKey(name);
    const current = new Map<number, MountSeen>();
    for (const entry of this.world.node(name).mountEntries()) {
      if (!entry.mountPoint.startsWith(kubeletRootPrefix)) continue;
      const previous = seen.mounts.get(entry.id);
      if (previous !== undefined) {
        current.set(entry.id, previous);
        continue;
      }
      const storageKey = identityOfMount(entry)?.key;
      const text = `${entry.mountPoint} (${entry.superblock.fsType} from ${entry.superblock.source})`;
      current.set(entry.id, { text, storageKey });
      this.history.record(key, atMs, `mounted ${text}`);
      if (storageKey !== undefined) this.history.record(storageKey, atMs, `mounted on ${name} at ${text}`);
    }
    for (const [id, mount] of seen.mounts) {
      if (current.has(id)) continue;
      this.history.record(key, atMs, `unmounted ${mount.text}`);
      if (mount.storageKey !== undefined)
        this.history.record(mount.storageKey, atMs, `unmounted on ${name}: ${mount.text}`);
    }
    seen.mounts = current;
  }
}

/** Calls `changed` for every key whose text differs from `seen` (undefined: the key is gone), then updates `seen`. */
function recordChanges(
  seen: Map<string, string>,
  current: ReadonlyMap<string, string>,
  changed: (key: string, text: string | undefined) => void,
): void {
  for (const [key, text] of current) {
    if (seen.get(key) !== text) changed(key, text);
    seen.set(key, text);
  }
  for (const key of [...seen.keys()]) {
    if (current.has(key)) continue;
    changed(key, undefined);
    seen.delete(key);
  }
}
