/**
 * The node's block devices and their nodes under /dev (a devtmpfs, so it is rebuilt at every boot):
 * cloud disks appear as /dev/sdb, /dev/sdc… with a /dev/disk/by-id link, loop devices as /dev/loopN,
 * RBD mappings as /dev/rbdN. Opening a device path means stat-ing it and looking its rdev up here, so
 * a device file bind-mounted elsewhere (block-mode volumes) still reaches the same device.
 */
import { posix } from "node:path";
import type { BlockStorage } from "./block-storage.ts";
import type { SimFilesystem } from "./filesystem.ts";
import { deviceNodeMode, loopMajor, rbdMajor, scsiDiskMajor, scsiDiskMinorsPerDisk } from "./sim-constants.ts";
import { encodeDev, formatMajorMinor } from "./superblock.ts";

type BlockDeviceKind = "disk" | "loop" | "rbd";

/** The file behind a loop device, for `losetup -j` and for detaching. */
interface LoopBacking {
  readonly path: string;
  readonly fs: SimFilesystem;
  readonly ino: number;
  /** st_dev of the filesystem holding the file, as losetup prints it. */
  readonly dev: number;
}

interface RbdMapping {
  readonly pool: string;
  readonly image: string;
}

export interface BlockDevice {
  readonly name: string;
  readonly path: string;
  readonly kind: BlockDeviceKind;
  readonly major: number;
  readonly minor: number;
  readonly rdev: number;
  readonly majorMinor: string;
  readonly storage: BlockStorage;
  readonly readOnly: boolean;
  /** Symlinks to the device node (`/dev/disk/by-id/virtio-<disk>`). */
  readonly links: readonly string[];
  readonly loopBacking: LoopBacking | undefined;
  readonly rbd: RbdMapping | undefined;
  /** Set when the device vanished underneath its users (a detached disk): their I/O fails with EIO. */
  gone: boolean;
  /** A loop device detached while mounted goes away when its last mount does (LO_FLAGS_AUTOCLEAR). */
  autoclear: boolean;
}

interface NewBlockDevice {
  kind: BlockDeviceKind;
  storage: BlockStorage;
  readOnly?: boolean;
  links?: string[];
  loopBacking?: LoopBacking;
  rbd?: RbdMapping;
}

/** How many of each kind a node can have (letters sdb…sdz, loop0…loop255, rbd0…rbd255). */
const maxDevicesPerKind = 255;
const firstDiskLetterIndex = 1; // sda is the root disk

export class BlockDeviceTable {
  private readonly byRdev = new Map<number, BlockDevice>();

  /** `devFs` is the node's devtmpfs: device nodes are created in it. */
  constructor(private readonly devFs: SimFilesystem) {}

  add(spec: NewBlockDevice): BlockDevice {
    const index = this.freeIndex(spec.kind);
    const { name, major, minor } = deviceNumbering(spec.kind, index);
    const device: BlockDevice = {
      name,
      path: `/dev/${name}`,
      kind: spec.kind,
      major,
      minor,
      rdev: encodeDev(major, minor),
      majorMinor: formatMajorMinor(major, minor),
      storage: spec.storage,
      readOnly: spec.readOnly ?? false,
      links: spec.links ?? [],
      loopBacking: spec.loopBacking,
      rbd: spec.rbd,
      gone: false,
      autoclear: false,
    };
    this.byRdev.set(device.rdev, device);
    this.createNodes(device);
    return device;
  }

  /** Removes the device and its /dev nodes; whoever still uses it now gets EIO. */
  remove(device: BlockDevice): void {
    device.gone = true;
    this.byRdev.delete(device.rdev);
    removeEntry(this.devFs, device.path);
    for (const link of device.links) removeEntry(this.devFs, link);
  }

  byDeviceNumber(rdev: number): BlockDevice | undefined {
    return this.byRdev.get(rdev);
  }

  list(): BlockDevice[] {
    return [...this.byRdev.values()];
  }

  private freeIndex(kind: BlockDeviceKind): number {
    const used = new Set(
      this.list()
        .filter((device) => device.kind === kind)
        .map((device) => device.name),
    );
    const start = kind === "disk" ? firstDiskLetterIndex : 0;
    for (let index = start; index <= maxDevicesPerKind; index++) {
      if (!used.has(deviceNumbering(kind, index).name)) return index;
    }
    throw new Error(`no free ${kind} device: all ${maxDevicesPerKind} are in use; detach some first`);
  }

  private createNodes(device: BlockDevice): void {
    putEntry(this.devFs, device.path, { type: "blockDevice", mode: deviceNodeMode, rdev: device.rdev });
    for (const link of device.links) {
      putEntry(this.devFs, link, { type: "symlink", target: posix.relative(posix.dirname(link), device.path) });
    }
  }
}

function deviceNumbering(kind: BlockDeviceKind, index: number): { name: string; major: number; minor: number } {
  switch (kind) {
    case "disk":
      return { name: `sd${diskLetters(index)}`, major: scsiDiskMajor, minor: index * scsiDiskMinorsPerDisk };
    case "loop":
      return { name: `loop${index}`, major: loopMajor, minor: index };
    case "rbd":
      return { name: `rbd${index}`, major: rbdMajor, minor: index * scsiDiskMinorsPerDisk };
  }
}

const alphabet = "abcdefghijklmnopqrstuvwxyz";

/** 0 → a, 25 → z, 26 → aa, as the sd driver names disks. */
function diskLetters(index: number): string {
  const letter = alphabet[index % alphabet.length] ?? "a";
  return index < alphabet.length ? letter : `${diskLetters(Math.floor(index / alphabet.length) - 1)}${letter}`;
}

/** Path relative to /dev, split into components (`/dev/disk/by-id/x` → disk, by-id, x). */
function devComponents(path: string): string[] {
  if (!path.startsWith("/dev/")) throw new Error(`device path ${path} is not under /dev`);
  return path.slice("/dev/".length).split("/");
}

type DevEntry = { type: "blockDevice"; mode: number; rdev: number } | { type: "symlink"; target: string };

function putEntry(devFs: SimFilesystem, path: string, entry: DevEntry): void {
  const parts = devComponents(path);
  const name = parts.pop() ?? "";
  let dirIno = devFs.rootIno;
  for (const part of parts) {
    dirIno = devFs.lookup(dirIno, part) ?? devFs.create(dirIno, part, { type: "directory", mode: 0o755 }, path);
  }
  if (devFs.lookup(dirIno, name) !== undefined) devFs.remove(dirIno, name);
  devFs.create(dirIno, name, entry, path);
}

function removeEntry(devFs: SimFilesystem, path: string): void {
  const parts = devComponents(path);
  const name = parts.pop() ?? "";
  let dirIno: number | undefined = devFs.rootIno;
  for (const part of parts) {
    dirIno = dirIno === undefined ? undefined : devFs.lookup(dirIno, part);
  }
  if (dirIno !== undefined) devFs.remove(dirIno, name);
}
