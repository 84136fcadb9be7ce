/**
 * The loop device Kubernetes puts over a mapped block device (volumepathhandler's AttachFileDevice):
 * it holds the device open, so while a pod uses it the device cannot be removed and replaced by
 * another disk under the same name. Found again with `losetup -j`, released with `losetup -d`.
 */
import { type Host, isHostError } from "../../host/host.ts";
import type { VolumeLogger } from "../volume-host.ts";

const losetupCommand = "losetup";

/** `/dev/loop0: [2049]:12 (/path)` → `/dev/loop0`, the first device over the file. */
function firstLoopDevice(output: string): string | undefined {
  const line = output.split("\n").find((candidate) => candidate.startsWith("/dev/"));
  const colon = line?.indexOf(":") ?? -1;
  return line === undefined || colon < 0 ? undefined : line.slice(0, colon);
}

/** The loop device over `path`, or undefined when there is none (or the path is gone). */
async function getLoopDevice(host: Host, path: string): Promise<string | undefined> {
  try {
    await host.stat(path);
  } catch (err) {
    if (isHostError(err, "ENOENT")) return undefined;
    throw new Error(`not attachable: ${(err as Error).message}`, { cause: err });
  }
  const result = await host.run(losetupCommand, ["-j", path]);
  if (result.exitCode !== 0)
    throw new Error(`losetup -j ${path} failed: exit status ${result.exitCode}: ${result.output}`);
  return firstLoopDevice(result.output);
}

/** Holds `path` open through a loop device (reusing one that already exists); returns the device. */
export async function attachFileDevice(host: Host, path: string, logger: VolumeLogger): Promise<string> {
  const existing = await getLoopDevice(host, path);
  if (existing !== undefined) return existing;
  const args = ["-f", "--show", path];
  const result = await host.run(losetupCommand, args);
  if (result.exitCode !== 0) {
    logger.warning(`Failed device create command for path: ${path} exit status ${result.exitCode} ${result.output}`);
    throw new Error(
      `makeLoopDevice failed for path ${path}: losetup ${args.join(" ")} failed: exit status ${result.exitCode}`,
    );
  }
  const device = result.output.trim();
  if (device === "") throw new Error(`makeLoopDevice failed for path ${path}: losetup printed no device`);
  return device;
}

/** Releases the loop device over `path`; none there is a warning, not an error. */
export async function detachFileDevice(host: Host, path: string, logger: VolumeLogger): Promise<void> {
  const device = await getLoopDevice(host, path);
  if (device === undefined) {
    logger.warning(
      `couldn't find loopback device which takes file descriptor lock. Skip detaching device. device path: "${path}"`,
    );
    return;
  }
  const result = await host.run(losetupCommand, ["-d", device]);
  if (result.exitCode === 0) return;
  try {
    await host.stat(device);
  } catch (err) {
    // The device vanished meanwhile: nothing is held any more.
    if (isHostError(err, "ENOENT")) return;
  }
  throw new Error(
    `removeLoopDevice failed for path ${path}: losetup -d ${device} failed: exit status ${result.exitCode}`,
  );
}
