/**
 * A fenceable device between a loop disk and a node: a device-mapper device (`dmsetup`) whose table
 * maps the whole loop device linearly, so node fencing can swap it for the `error` target — every
 * read and write then fails with EIO, whatever filesystem is mounted on it and whoever holds it
 * open — and swap the linear table back to unfence. The node sees `/dev/mapper/<name>`; the loop
 * device stays underneath, shared by the nodes of a multi-attach disk.
 *
 * Table swaps follow dmsetup's own sequence: `suspend` (with `--noflush` when fencing, so pending
 * I/O fails instead of being written), `load` of the new table into the inactive slot, `resume`.
 */
import { type Host, isHostError } from "../../../host/host.ts";

const dmsetupCommand = "dmsetup";
/** Device-mapper device names are at most 127 bytes (DM_NAME_LEN 128 with its NUL). */
const dmNameMaxLength = 127;
/** Where udev (or dmsetup without it) puts the device nodes. */
export const deviceMapperDir = "/dev/mapper";

/** `kvol-<node>-<disk>`: one device per disk and node, so fencing one node leaves the others' devices alone. */
export function fenceableDeviceName(diskId: string, nodeName: string): string {
  const name = `kvol-${nodeName}-${diskId}`;
  if (name.length > dmNameMaxLength || !/^[A-Za-z0-9._-]+$/.test(name)) {
    throw new Error(
      `the device-mapper name ${JSON.stringify(name)} for disk ${diskId} on node ${nodeName} is longer than ${dmNameMaxLength} characters or has characters other than letters, digits, ".", "_" and "-"`,
    );
  }
  return name;
}

export function fenceableDevicePath(name: string): string {
  return `${deviceMapperDir}/${name}`;
}

async function dmsetup(host: Host, args: readonly string[]): Promise<string> {
  const result = await host.run(dmsetupCommand, args);
  if (result.exitCode !== 0) {
    throw new Error(`dmsetup ${args.join(" ")} failed with exit status ${result.exitCode}: ${result.output.trim()}`);
  }
  return result.output;
}

/** Where the kernel registers its device-mapper driver (a leftover /dev/mapper/control proves nothing). */
export const deviceMapperSysfsPath = "/sys/class/misc/device-mapper";

/**
 * Why device-mapper cannot be used on this host, or undefined: no dmsetup, no device-mapper driver
 * in the kernel (then no install helps: the module must be loaded, or be there to load), or
 * dmsetup's own complaint.
 */
export async function deviceMapperUnavailable(host: Host): Promise<string | undefined> {
  if (!(await host.hasCommand(dmsetupCommand))) {
    return "dmsetup is not on PATH (Debian and Ubuntu: apt-get install dmsetup)";
  }
  if (!(await hasKernelDriver(host))) {
    return `this kernel has no device-mapper driver (no ${deviceMapperSysfsPath}; modprobe dm_mod loads it where the kernel has the module)`;
  }
  try {
    const result = await host.run(dmsetupCommand, ["version"]);
    if (result.exitCode === 0 && /Driver version/.test(result.output)) return undefined;
    // Its first line is the library's version; the lines after say what failed.
    const complaint = result.output
      .trim()
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("Library version"))
      .join("; ");
    return `dmsetup version failed (exit status ${result.exitCode}): ${complaint}`;
  } catch (error) {
    return `dmsetup cannot be run: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function hasKernelDriver(host: Host): Promise<boolean> {
  try {
    await host.stat(deviceMapperSysfsPath);
    return true;
  } catch (error) {
    if (isHostError(error, "ENOENT")) return false;
    throw error;
  }
}

/** The device's live table (`0 2097152 linear 7:3 0`), or undefined when there is no such device. */
export async function deviceTable(host: Host, name: string): Promise<string | undefined> {
  const result = await host.run(dmsetupCommand, ["table", name]);
  if (result.exitCode !== 0) return undefined;
  return result.output.trim();
}

/** The size of a block device in 512-byte sectors (`blockdev --getsz`). */
async function sectorsOf(host: Host, device: string): Promise<number> {
  const result = await host.run("blockdev", ["--getsz", device]);
  const sectors = Number(result.output.trim());
  if (result.exitCode !== 0 || !Number.isSafeInteger(sectors) || sectors <= 0) {
    throw new Error(`blockdev --getsz ${device} failed with exit status ${result.exitCode}: ${result.output.trim()}`);
  }
  return sectors;
}

function linearTable(sectors: number, loopDevice: string): string {
  return `0 ${sectors} linear ${loopDevice} 0`;
}

/** Makes the linear device over `loopDevice` unless it exists; returns its path. Idempotent. */
export async function ensureLinearDevice(host: Host, name: string, loopDevice: string): Promise<string> {
  if ((await deviceTable(host, name)) === undefined) {
    const sectors = await sectorsOf(host, loopDevice);
    await dmsetup(host, ["create", name, "--table", linearTable(sectors, loopDevice)]);
  }
  return fenceableDevicePath(name);
}

/** Swaps the device's table for `error`: from now on every I/O on it fails. Idempotent. */
export async function switchToError(host: Host, name: string): Promise<void> {
  const table = await deviceTable(host, name);
  if (table === undefined) throw new Error(`no device-mapper device ${name} to fence`);
  if (isErrorTable(table)) return;
  const sectors = table.split(" ")[1] ?? "";
  await dmsetup(host, ["suspend", "--noflush", name]);
  await dmsetup(host, ["load", name, "--table", `0 ${sectors} error`]);
  await dmsetup(host, ["resume", name]);
}

/** Swaps the linear table over `loopDevice` back in. Idempotent. */
export async function switchToLinear(host: Host, name: string, loopDevice: string): Promise<void> {
  const table = await deviceTable(host, name);
  if (table === undefined) throw new Error(`no device-mapper device ${name} to unfence`);
  if (!isErrorTable(table)) return;
  const sectors = await sectorsOf(host, loopDevice);
  await dmsetup(host, ["suspend", name]);
  await dmsetup(host, ["load", name, "--table", linearTable(sectors, loopDevice)]);
  await dmsetup(host, ["resume", name]);
}

/**
 * Removes the device; no device is not an error. A fenced device (error table) may still be held
 * open by the fenced node's stale mount: it is removed deferred — as soon as its last opener closes
 * it — so the volume can be detached and move on meanwhile; its table no longer uses the loop device.
 */
export async function removeDevice(host: Host, name: string): Promise<void> {
  const table = await deviceTable(host, name);
  if (table === undefined) return;
  await dmsetup(host, ["remove", isErrorTable(table) ? "--deferred" : "--retry", name]);
}

/** Whether a table is the error target over the whole device (`0 2097152 error`). */
export function isErrorTable(table: string): boolean {
  return /^0 \d+ error$/.test(table.trim());
}
