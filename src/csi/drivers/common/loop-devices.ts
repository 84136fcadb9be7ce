/**
 * The loop devices over a block volume's backing file, through losetup(8) on the Host: a block
 * volume is staged by attaching a loop device to its sparse file, published by bind-mounting that
 * device onto the pod's target file, and unstaged by detaching it.
 */
import type { Host } from "../../../host/host.ts";
import { loopDevicePathPattern } from "./constants.ts";

const losetupCommand = "losetup";

/** The loop devices attached to `file` (`losetup -j`), in the order losetup lists them. */
export async function loopDevicesOf(host: Host, file: string): Promise<string[]> {
  const result = await host.run(losetupCommand, ["-j", file]);
  if (result.exitCode !== 0) throw losetupFailure(["-j", file], result.exitCode, result.output);
  return result.output
    .split("\n")
    .map((line) => line.slice(0, line.indexOf(":")))
    .filter((device) => loopDevicePathPattern.test(device));
}

/**
 * The loop device over `file`, attaching one when there is none yet. With `reuse: false` a new one
 * is always bound: the caller found none of its own (`losetup -j` matches the inode, so a hard
 * link's devices and the file's are the same to it).
 */
export async function ensureLoopDevice(host: Host, file: string, options?: { reuse?: boolean }): Promise<string> {
  const [existing] = options?.reuse === false ? [] : await loopDevicesOf(host, file);
  if (existing !== undefined) return existing;
  const args = ["-f", "--show", file];
  const result = await host.run(losetupCommand, args);
  const device = result.output.trim();
  if (result.exitCode !== 0 || !loopDevicePathPattern.test(device)) {
    throw losetupFailure(args, result.exitCode, result.output);
  }
  return device;
}

/** Detaches every loop device over `file`. */
export async function detachLoopDevices(host: Host, file: string): Promise<void> {
  for (const device of await loopDevicesOf(host, file)) await releaseLoopDevice(host, device);
}

/**
 * Detaches loop device `device` (`losetup -d`). One still held open — a mount on it — is released
 * by the kernel when its last holder lets it go (autoclear), and is listed until then.
 */
export async function releaseLoopDevice(host: Host, device: string): Promise<void> {
  const result = await host.run(losetupCommand, ["-d", device]);
  if (result.exitCode !== 0) throw losetupFailure(["-d", device], result.exitCode, result.output);
}

/** Makes every loop device over `file` re-read its size (`losetup -c`), after the file grew. */
export async function refreshLoopDeviceSizes(host: Host, file: string): Promise<string[]> {
  const devices = await loopDevicesOf(host, file);
  for (const device of devices) {
    const result = await host.run(losetupCommand, ["-c", device]);
    if (result.exitCode !== 0) throw losetupFailure(["-c", device], result.exitCode, result.output);
  }
  return devices;
}

function losetupFailure(args: readonly string[], exitCode: number, output: string): Error {
  return new Error(`losetup ${args.join(" ")} failed with exit status ${exitCode}: ${output.trim()}`);
}
