/**
 * A VolumeCatalog kept as one JSON file in the driver's state directory, through the Host — the way
 * csi-driver-host-path keeps its state.json — so a driver process that restarts still knows its
 * volumes. Every write replaces the file atomically (write a temporary file, rename it over), and
 * operations run one at a time, so concurrent RPCs never interleave a read-modify-write.
 */
import { posix } from "node:path";
import { type Host, isHostError } from "../../../host/host.ts";
import { catalogFileName } from "./constants.ts";
import { compareVolumeIds, copyRecord, type VolumeCatalog, type VolumeRecord } from "./volume-catalog.ts";

const catalogFileMode = 0o600;
const stateDirMode = 0o750;

interface CatalogFile {
  volumes: VolumeRecord[];
}

export class HostFileVolumeCatalog implements VolumeCatalog {
  readonly path: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly host: Host,
    private readonly stateDir: string,
  ) {
    this.path = posix.join(stateDir, catalogFileName);
  }

  get(volumeId: string): Promise<VolumeRecord | undefined> {
    return this.serially(async () => (await this.read()).find((record) => record.volumeId === volumeId));
  }

  findByName(name: string): Promise<VolumeRecord | undefined> {
    return this.serially(async () => (await this.read()).find((record) => record.name === name));
  }

  list(): Promise<VolumeRecord[]> {
    return this.serially(() => this.read());
  }

  put(record: VolumeRecord): Promise<void> {
    return this.serially(async () => {
      const others = (await this.read()).filter((existing) => existing.volumeId !== record.volumeId);
      await this.write([...others, copyRecord(record)]);
    });
  }

  remove(volumeId: string): Promise<void> {
    return this.serially(async () => {
      const records = await this.read();
      const kept = records.filter((record) => record.volumeId !== volumeId);
      if (kept.length !== records.length) await this.write(kept);
    });
  }

  /** Runs `operation` after every operation queued before it, whatever their outcome. */
  private serially<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation, operation);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async read(): Promise<VolumeRecord[]> {
    let bytes: Uint8Array;
    try {
      bytes = await this.host.readFile(this.path);
    } catch (error) {
      if (isHostError(error, "ENOENT")) return [];
      throw error;
    }
    return parseCatalog(new TextDecoder().decode(bytes), this.path);
  }

  private async write(records: VolumeRecord[]): Promise<void> {
    await this.host.mkdir(this.stateDir, stateDirMode, { recursive: true });
    const content: CatalogFile = { volumes: [...records].sort(compareVolumeIds) };
    const temporaryPath = `${this.path}.tmp`;
    await this.host.writeFile(temporaryPath, `${JSON.stringify(content, null, 2)}\n`, catalogFileMode);
    await this.host.rename(temporaryPath, this.path);
  }
}

function parseCatalog(text: string, path: string): VolumeRecord[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `volume catalog ${path} is not valid JSON (${String(error)}); restore it from a backup or remove it`,
    );
  }
  const volumes = (parsed as Partial<CatalogFile> | null)?.volumes;
  if (!Array.isArray(volumes) || !volumes.every(isVolumeRecord)) {
    throw new Error(`volume catalog ${path} has no valid "volumes" list; restore it from a backup or remove it`);
  }
  return volumes.sort(compareVolumeIds);
}

function isVolumeRecord(value: unknown): value is VolumeRecord {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Partial<VolumeRecord>;
  return (
    typeof record.volumeId === "string" &&
    typeof record.name === "string" &&
    typeof record.capacityBytes === "number" &&
    (record.accessType === "mount" || record.accessType === "block") &&
    typeof record.parameters === "object" &&
    Array.isArray(record.publications)
  );
}
