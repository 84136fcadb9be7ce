/**
 * Fencing a loop device: its offset into the backing file is moved far past the file's end
 * (LOOP_SET_STATUS64), so the kernel gives it a capacity of 0 and every read and write on it fails
 * with EIO — a mounted filesystem's included — while the device stays bound and held. The kernel
 * flushes the device's dirty page cache before changing the offset, so writes issued before the
 * fence land and none after it does. The size stays 0 whatever happens to the file: the kernel's
 * size is 0 whenever the offset is past the file's end, and 2^62 bytes is past any disk's end, so
 * growing the disk or `losetup -c` does not lift the fence.
 *
 * losetup cannot change the offset of a bound device; perl (perl-base is Essential in Debian) makes
 * the ioctl. `blockdev --setro` is no fence: the kernel only logs a mounted ext4's writes to a
 * read-only loop device and lets them through.
 */
import { type Host, isHostError } from "../../../host/host.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import { detachLoopDevices, ensureLoopDevice } from "../common/loop-devices.ts";

/** Where a fenced loop device starts reading its file: past the end of any disk (2^62 bytes). */
export const fenceOffsetBytes = "4611686018427387904";
/** Reading a fenced device back: its capacity, in 512-byte sectors, is 0. */
const fencedSizeSectors = 0;
const probeSizeBytes = 1024 * 1024;

/**
 * LOOP_GET_STATUS64 (0x4C05), lo_offset changed (a u64 at byte 24 of struct loop_info64, 232 bytes),
 * LOOP_SET_STATUS64 (0x4C04). The kernel answers EAGAIN while the device still has pages it could
 * not drop (a writer racing the flush): retried, at most 50 times 100 ms apart.
 */
const setOffsetScript = `
use strict; my ($dev, $off) = @ARGV;
open(my $f, "+<", $dev) or die "open $dev: $!\\n";
my $buf = "\\0" x 232;
ioctl($f, 0x4C05, $buf) or die "LOOP_GET_STATUS64 on $dev: $!\\n";
substr($buf, 24, 8) = pack("Q", $off);
for my $try (1 .. 50) {
  exit 0 if ioctl($f, 0x4C04, $buf);
  die "LOOP_SET_STATUS64 on $dev: $!\\n" unless $!{EAGAIN} || $!{EBUSY};
  select(undef, undef, undef, 0.1);
}
die "LOOP_SET_STATUS64 on $dev: $! (50 tries)\\n";
`;

/** Sets the offset of loop device `device` (a decimal byte count, "0" to lift a fence). */
export async function setLoopOffset(host: Host, device: string, offsetBytes: string): Promise<void> {
  const result = await host.run("perl", ["-e", setOffsetScript, device, offsetBytes]);
  if (result.exitCode !== 0) {
    throw new Error(
      `moving the offset of ${device} to ${offsetBytes} failed with exit status ${result.exitCode}: ${result.output.trim()}`,
    );
  }
}

export interface LoopDeviceState {
  readonly device: string;
  /** Its capacity now (`/sys/block/loopN/size`), in 512-byte sectors. */
  readonly sizeSectors: number;
  /** Its offset into the backing file (`/sys/block/loopN/loop/offset`), in bytes, as the kernel prints it. */
  readonly offsetBytes: string;
}

/** The live capacity and offset of a loop device, or undefined when it is no longer bound. */
export async function loopDeviceState(host: Host, device: string): Promise<LoopDeviceState | undefined> {
  const name = device.slice(device.lastIndexOf("/") + 1);
  try {
    const sizeSectors = Number((await readText(host, `/sys/block/${name}/size`)).trim());
    const offsetBytes = (await readText(host, `/sys/block/${name}/loop/offset`)).trim();
    return { device, sizeSectors, offsetBytes };
  } catch (error) {
    // An unbound loop device has no loop/ directory in sysfs.
    if (isHostError(error, "ENOENT")) return undefined;
    throw error;
  }
}

/** Whether the state read back is a fence: no capacity, and the fence's offset. */
export function isFenced(state: LoopDeviceState | undefined): boolean {
  return state !== undefined && state.sizeSectors === fencedSizeSectors && state.offsetBytes === fenceOffsetBytes;
}

async function readText(host: Host, path: string): Promise<string> {
  return new TextDecoder().decode(await host.readFile(path));
}

/**
 * Why loop devices cannot be fenced on this machine, or undefined once a probe proved they can:
 * losetup or perl missing, no loop driver, or a probe that fails — a loop device bound over a 1 MiB
 * scratch file `probeFile` (one per process: two probes must not release each other's device), its
 * offset moved to the fence's, its size read back as 0, released.
 */
export async function loopFenceUnavailable(host: Host, probeFile: string): Promise<string | undefined> {
  const missing = await loopFenceToolsMissing(host);
  if (missing !== undefined) return missing;
  try {
    return await probe(host, probeFile);
  } catch (error) {
    return `the probe of a fenced loop device over ${probeFile} failed: ${errorMessage(error)}`;
  }
}

/** What of the fence's means this machine lacks (losetup, perl, the loop driver), without a probe. */
export async function loopFenceToolsMissing(host: Host): Promise<string | undefined> {
  for (const [command, hint] of [
    ["losetup", "Debian and Ubuntu: apt-get install mount"],
    ["perl", "Debian and Ubuntu: apt-get install perl-base"],
  ] as const) {
    if (!(await host.hasCommand(command))) return `${command} is not on PATH (${hint})`;
  }
  try {
    await host.stat("/dev/loop-control");
    return undefined;
  } catch (error) {
    if (isHostError(error, "ENOENT")) return "this kernel has no loop driver (no /dev/loop-control; modprobe loop)";
    throw error;
  }
}

async function probe(host: Host, probeFile: string): Promise<string | undefined> {
  await detachLoopDevices(host, probeFile);
  await host.createSparseFile(probeFile, probeSizeBytes);
  try {
    const device = await ensureLoopDevice(host, probeFile, { reuse: false });
    await setLoopOffset(host, device, fenceOffsetBytes);
    const state = await loopDeviceState(host, device);
    if (!isFenced(state)) {
      return `a probe loop device ${device} whose offset was moved past its file's end still has ${state?.sizeSectors} sectors at offset ${state?.offsetBytes}`;
    }
    return undefined;
  } finally {
    await detachLoopDevices(host, probeFile);
    await host.unlink(probeFile);
  }
}
