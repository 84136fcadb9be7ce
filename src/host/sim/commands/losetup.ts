/**
 * losetup(8): `-f --show <file>` attaches the next free loop device and prints it, `-j <file>` lists
 * the loop devices over a file, `-d <device>` detaches (lazily when still mounted, as the kernel's
 * autoclear does), `-c <device>` re-reads the backing file's size (after it grew), `-a` lists all. Kubernetes' block-mode volumes hold a loop device on the device
 * file so the device cannot be swapped underneath a running pod.
 */

import type { BlockDevice } from "../devices.ts";
import { genericFailureExitStatus } from "../sim-constants.ts";
import { type CommandContext, type CommandHandler, failed, succeeded } from "./command-context.ts";
import { errnoOf, strerror } from "./errno-text.ts";
import { setUpLoopDevice } from "./loop-setup.ts";

/** Flags that change nothing in the model (`--direct-io=on`, `-P`, `-r`). */
const ignoredFlags = /^(--direct-io(=\w+)?|-P|--partscan|-r|--read-only|--show|-f|--find|-fP)$/;

export const losetupCommand: CommandHandler = async (context, args) => {
  const readOnly = args.includes("-r") || args.includes("--read-only");
  const operand = args.filter((arg) => !arg.startsWith("-")).at(-1);
  if (args.includes("-d") || args.includes("--detach")) return detach(context, operand);
  if (args.includes("-j") || args.includes("--associated")) return associated(context, operand);
  if (args.includes("-c") || args.includes("--set-capacity")) return setCapacity(context, operand);
  if (args.includes("-a") || args.includes("--all"))
    return succeeded(context.state.devices.list().filter(isLoop).map(describe).join(""));
  if ((args.includes("-f") || args.includes("--find") || args.includes("-fP")) && operand !== undefined) {
    return attach(context, operand, readOnly, args.includes("--show"));
  }
  const unknown = args.find((arg) => arg.startsWith("-") && !ignoredFlags.test(arg));
  return failed(
    genericFailureExitStatus,
    `losetup: ${unknown === undefined ? "bad usage" : `unrecognized option '${unknown}'`}\n`,
  );
};

async function attach(context: CommandContext, file: string, readOnly: boolean, show: boolean) {
  try {
    const device = await setUpLoopDevice(context, file, readOnly);
    return succeeded(show ? `${device.path}\n` : "");
  } catch (error) {
    if (context.cancellation.cancelled) throw error;
    return failed(
      genericFailureExitStatus,
      `losetup: ${file}: failed to set up loop device: ${strerror(errnoOf(error))}\n`,
    );
  }
}

async function detach(context: CommandContext, devicePath: string | undefined) {
  if (devicePath === undefined)
    return failed(genericFailureExitStatus, "losetup: option requires an argument -- 'd'\n");
  const device = await deviceOrUndefined(context, devicePath);
  if (device === undefined || device.kind !== "loop") {
    return failed(genericFailureExitStatus, `losetup: ${devicePath}: detach failed: No such device or address\n`);
  }
  if (context.kernel.mountsOfDevice(device).length > 0) device.autoclear = true;
  else context.state.devices.remove(device);
  return succeeded();
}

async function setCapacity(context: CommandContext, devicePath: string | undefined) {
  if (devicePath === undefined)
    return failed(genericFailureExitStatus, "losetup: option requires an argument -- 'c'\n");
  const device = await deviceOrUndefined(context, devicePath);
  const backing = device?.loopBacking;
  if (device === undefined || device.kind !== "loop" || backing === undefined) {
    return failed(genericFailureExitStatus, `losetup: ${devicePath}: set capacity failed: No such device or address\n`);
  }
  const file = backing.fs.inode(backing.ino);
  const fileBytes = file.type === "file" ? (file.sizeBytes ?? file.data.byteLength) : 0;
  if (fileBytes > device.storage.sizeBytes) device.storage.grow(fileBytes);
  return succeeded();
}

async function associated(context: CommandContext, file: string | undefined) {
  if (file === undefined) return failed(genericFailureExitStatus, "losetup: option requires an argument -- 'j'\n");
  try {
    const location = await context.state.walker.walk(file, "stat", context.cancellation, { followLast: true });
    const fs = location.mount.superblock.fs;
    const matches = context.state.devices
      .list()
      .filter((device) => device.loopBacking?.fs === fs && device.loopBacking.ino === location.ino);
    return succeeded(matches.map(describe).join(""));
  } catch (error) {
    if (context.cancellation.cancelled) throw error;
    return failed(genericFailureExitStatus, `losetup: ${file}: ${strerror(errnoOf(error))}\n`);
  }
}

async function deviceOrUndefined(context: CommandContext, path: string): Promise<BlockDevice | undefined> {
  try {
    return await context.kernel.blockDeviceAt(path, "open", context.cancellation);
  } catch (error) {
    if (context.cancellation.cancelled) throw error;
    errnoOf(error);
    return undefined;
  }
}

function isLoop(device: BlockDevice): boolean {
  return device.kind === "loop";
}

/** `/dev/loop0: [2049]:12 (/var/lib/kubelet/…/file)`, as losetup -a and -j print a device. */
function describe(device: BlockDevice): string {
  const backing = device.loopBacking;
  return backing === undefined ? "" : `${device.path}: [${backing.dev}]:${backing.ino} (${backing.path})\n`;
}
