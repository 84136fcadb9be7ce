/**
 * Watching a running cluster whose volumes are all single-attach (ReadWriteOnce claims of a class
 * without multi-attach) for a volume attached to two nodes at once, by polling until stopped:
 * - the VolumeAttachments (one list, one consistent revision): a PV whose attachments say
 *   `attached: true` on two nodes;
 * - the Nodes' `status.volumesAttached` (one list): a volume reported attached by two nodes;
 * - the disk driver's records (`<disks dir>/<id>.json`): a disk without multi-attach recorded as
 *   attached to two nodes — what the "cloud" itself did.
 * Each sighting is kept with what was seen, so a failing test shows it.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "../../runtime/error-message.ts";
import { sleepMs } from "./wait-for.ts";

/** How often the cluster is looked at. */
const monitorPollIntervalMs = 250;

export interface AttachmentJson {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName: string; source: { persistentVolumeName?: string } };
  status?: { attached?: boolean };
}

interface NodeJson {
  metadata: { name: string };
  status?: { volumesAttached?: { name: string }[] };
}

interface DiskRecordJson {
  id: string;
  multiAttach: boolean;
  attachments: { nodeName: string }[];
}

export interface DoubleAttachSighting {
  /** Where it was seen: `VolumeAttachment`, `Node status`, or `disk record`. */
  source: string;
  volume: string;
  nodes: string[];
}

export interface DoubleAttachMonitorOptions {
  /** GET of an API path, answered by whichever API server is up. */
  get: <T>(path: string) => Promise<T>;
  disksDir: string;
}

export class DoubleAttachMonitor {
  readonly sightings: DoubleAttachSighting[] = [];
  /** Polls that saw all three sources. */
  polls = 0;
  /** The most VolumeAttachments with `attached: true` seen at once. */
  mostAttached = 0;
  private readonly errors: string[] = [];
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(private readonly options: DoubleAttachMonitorOptions) {}

  start(): void {
    this.loop = this.run();
  }

  /** Stops polling; resolves after the poll in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  /** The last few failed polls (an API server down is expected for a moment). */
  get recentErrors(): readonly string[] {
    return this.errors.slice(-5);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.poll();
        this.polls++;
      } catch (error) {
        this.errors.push(errorMessage(error));
      }
      await sleepMs(monitorPollIntervalMs);
    }
  }

  private async poll(): Promise<void> {
    const attachments = await this.options.get<{ items: AttachmentJson[] }>(
      "/apis/storage.k8s.io/v1/volumeattachments",
    );
    const attachedNodes = new Map<string, string[]>();
    let attached = 0;
    for (const item of attachments.items) {
      const pv = item.spec.source.persistentVolumeName;
      if (pv === undefined || item.status?.attached !== true) continue;
      attached++;
      attachedNodes.set(pv, [...(attachedNodes.get(pv) ?? []), item.spec.nodeName]);
    }
    this.mostAttached = Math.max(this.mostAttached, attached);
    this.record("VolumeAttachment", attachedNodes);

    const nodes = await this.options.get<{ items: NodeJson[] }>("/api/v1/nodes");
    const reported = new Map<string, string[]>();
    for (const node of nodes.items) {
      for (const volume of node.status?.volumesAttached ?? []) {
        reported.set(volume.name, [...(reported.get(volume.name) ?? []), node.metadata.name]);
      }
    }
    this.record("Node status", reported);

    const recorded = new Map<string, string[]>();
    for (const record of await readDiskRecords(this.options.disksDir)) {
      if (!record.multiAttach) recorded.set(record.id, [...new Set(record.attachments.map((a) => a.nodeName))]);
    }
    this.record("disk record", recorded);
  }

  private record(source: string, nodesByVolume: ReadonlyMap<string, string[]>): void {
    for (const [volume, nodes] of nodesByVolume) {
      if (new Set(nodes).size > 1) this.sightings.push({ source, volume, nodes });
    }
  }
}

/** Every disk record of the directory; a record replaced while read is read at the next poll. */
export async function readDiskRecords(disksDir: string): Promise<DiskRecordJson[]> {
  let names: string[];
  try {
    names = await readdir(disksDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const records: DiskRecordJson[] = [];
  for (const name of names.filter((entry) => entry.endsWith(".json"))) {
    try {
      records.push(JSON.parse(await readFile(join(disksDir, name), "utf8")) as DiskRecordJson);
    } catch (error) {
      // Deleted between readdir and read (DeleteVolume): the disk is gone, nothing to check.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return records;
}
