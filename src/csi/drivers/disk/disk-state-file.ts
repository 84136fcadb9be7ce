/**
 * The record of one real disk (LoopDiskBackend): `<disksDir>/<id>.json` beside its sparse file
 * `<disksDir>/<id>.img`, holding its size, zone, multi-attach flag and the nodes it is attached to.
 * Every write goes to a temporary file renamed over the record, so a process killed at any instant
 * leaves either the old record or the new one, never half of one. The record is the commit point:
 * a disk exists once its record does, and is gone once its record is.
 */

import { posix } from "node:path";
import { type Host, isHostError } from "../../../host/host.ts";
import { readTextIfExists } from "../../../host/read-text-if-exists.ts";
import { CloudDiskError } from "../../../host/sim/world/disk-provider.ts";
import type { DiskAttachmentView, DiskView } from "./disk-backend.ts";

const diskRecordSuffix = ".json";
const diskImageSuffix = ".img";
const temporarySuffix = ".tmp";
const recordFileMode = 0o600;
const disksDirMode = 0o750;

/** Disk ids are file names: letters, digits, `.`, `_`, `-`, not starting with a dot. */
const diskIdPattern = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

interface DiskRecordFile {
  id: string;
  sizeBytes: number;
  zone?: string;
  multiAttach: boolean;
  attachments: Array<{ nodeName: string; readOnly: boolean }>;
}

export class DiskStateFiles {
  constructor(
    private readonly host: Host,
    readonly disksDir: string,
  ) {}

  /** The id, checked to be a plain file name; anything else cannot name a disk (NotFound). */
  checkedId(id: string): string {
    if (!diskIdPattern.test(id)) throw new CloudDiskError("NotFound", `disk ${id} not found: not a valid disk id`);
    return id;
  }

  imagePath(id: string): string {
    return posix.join(this.disksDir, `${this.checkedId(id)}${diskImageSuffix}`);
  }

  recordPath(id: string): string {
    return posix.join(this.disksDir, `${this.checkedId(id)}${diskRecordSuffix}`);
  }

  /** The disk's record, or undefined when it has none. */
  async read(id: string): Promise<DiskView | undefined> {
    const path = this.recordPath(id);
    const text = await readTextIfExists(this.host, path);
    return text === undefined ? undefined : parseRecord(text, path);
  }

  async ensureDisksDir(): Promise<void> {
    await this.host.mkdir(this.disksDir, disksDirMode, { recursive: true });
  }

  /** Replaces the record atomically (temporary file, then rename). */
  async write(disk: DiskView): Promise<void> {
    await this.ensureDisksDir();
    const record: DiskRecordFile = {
      id: disk.id,
      sizeBytes: disk.sizeBytes,
      ...(disk.zone === undefined ? {} : { zone: disk.zone }),
      multiAttach: disk.multiAttach,
      attachments: [...disk.attachments.values()].map(({ nodeName, readOnly }) => ({ nodeName, readOnly })),
    };
    const path = this.recordPath(disk.id);
    const temporaryPath = `${path}${temporarySuffix}`;
    await this.host.writeFile(temporaryPath, `${JSON.stringify(record, null, 2)}\n`, recordFileMode);
    await this.host.rename(temporaryPath, path);
  }

  /** Removes the record, and the temporary one a write killed before its rename left. */
  async remove(id: string): Promise<void> {
    const path = this.recordPath(id);
    for (const file of [path, `${path}${temporarySuffix}`]) {
      try {
        await this.host.unlink(file);
      } catch (error) {
        if (!isHostError(error, "ENOENT")) throw error;
      }
    }
  }

  /** The ids of every disk with a record, sorted. */
  async ids(): Promise<string[]> {
    let names: string[];
    try {
      names = await this.host.readdir(this.disksDir);
    } catch (error) {
      if (isHostError(error, "ENOENT")) return [];
      throw error;
    }
    return names
      .filter((name) => name.endsWith(diskRecordSuffix))
      .map((name) => name.slice(0, -diskRecordSuffix.length))
      .filter((id) => diskIdPattern.test(id))
      .sort();
  }
}

/** A view with `attachments` replaced. */
export function withAttachments(disk: DiskView, attachments: readonly DiskAttachmentView[]): DiskView {
  return { ...disk, attachments: new Map(attachments.map((attachment) => [attachment.nodeName, attachment])) };
}

function parseRecord(text: string, path: string): DiskView {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`disk record ${path} is not valid JSON (${String(error)}); restore it or remove the disk's files`);
  }
  if (!isRecordFile(parsed)) {
    throw new Error(`disk record ${path} lacks id, sizeBytes, multiAttach or attachments; restore it`);
  }
  return {
    id: parsed.id,
    sizeBytes: parsed.sizeBytes,
    zone: parsed.zone,
    multiAttach: parsed.multiAttach,
    attachments: new Map(parsed.attachments.map((a) => [a.nodeName, { nodeName: a.nodeName, readOnly: a.readOnly }])),
  };
}

function isRecordFile(value: unknown): value is DiskRecordFile {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Partial<DiskRecordFile>;
  return (
    typeof record.id === "string" &&
    typeof record.sizeBytes === "number" &&
    (record.zone === undefined || typeof record.zone === "string") &&
    typeof record.multiAttach === "boolean" &&
    Array.isArray(record.attachments) &&
    record.attachments.every(
      (a: unknown) =>
        typeof a === "object" &&
        a !== null &&
        typeof (a as { nodeName?: unknown }).nodeName === "string" &&
        typeof (a as { readOnly?: unknown }).readOnly === "boolean",
    )
  );
}
