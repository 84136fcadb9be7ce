/**
 * Mapping an rbd image on the node (Kubernetes' RBDUtil.AttachDisk), the step that makes RBD
 * exclusive: unless the PV is ReadOnlyMany only, the image is mapped only once `rbd status` shows no
 * watcher — whoever watches it, even for a ReadWriteMany PV (seed 004). The wait polls with backoff
 * (1 s, ×1.4, 10 checks ≈ 49 s) so a dead node's watch can expire (Ceph's 30 s watch timeout).
 */
import { isHostError } from "../../../host/host.ts";
import {
  Backoff,
  exponentialBackoffWait,
  rbdImageWatcherBackoff,
  WaitTimeoutError,
} from "../../../runtime/wait-backoff.ts";
import type { NodeVolumeContext, VolumeHost } from "../../volume-host.ts";
import { globalMountDirMode } from "../device-mount.ts";
import { rbdMap, rbdMappedDevice, rbdStatus } from "./rbd-cli.ts";
import { type RbdVolumeInfo, rbdGlobalMountDir } from "./rbd-source.ts";

/** After `rbd map`, the device is looked for this many times, a second apart. */
const rbdMapDeviceWaitAttempts = 10;
const rbdMapDeviceWaitIntervalMs = 1_000;

async function ensureGlobalMountDir(node: NodeVolumeContext, info: RbdVolumeInfo): Promise<void> {
  const dir = rbdGlobalMountDir(node.rootDir, info.pool, info.image);
  try {
    await node.host.stat(dir);
  } catch (err) {
    if (!isHostError(err, "ENOENT")) throw new Error(`error checking if path exists: ${(err as Error).message}`);
    await node.host.mkdir(dir, globalMountDirMode, { recursive: true });
  }
}

/** Looks for the mapped device up to `attempts` times, sleeping between looks. */
async function waitForMappedDevice(
  host: VolumeHost,
  node: NodeVolumeContext,
  info: RbdVolumeInfo,
  attempts: number,
): Promise<string | undefined> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await host.clock.sleep(rbdMapDeviceWaitIntervalMs);
    const device = await rbdMappedDevice(node.host, info.pool, info.image);
    if (device !== undefined) return device;
  }
  return undefined;
}

/** Waits until nobody watches the image; a ReadOnlyMany-only PV does not wait. */
async function waitUntilUnused(
  host: VolumeHost,
  node: NodeVolumeContext,
  info: RbdVolumeInfo,
  key: string,
): Promise<void> {
  const mustBeUnused = !(info.accessModes.length === 1 && info.accessModes[0] === "ReadOnlyMany");
  try {
    await exponentialBackoffWait(host.clock, new Backoff(rbdImageWatcherBackoff, host.rng), async () => {
      const status = await rbdStatus(node.host, info, key);
      return !mustBeUnused || !status.used;
    });
  } catch (err) {
    if (err instanceof WaitTimeoutError) throw new Error(`rbd image ${info.pool}/${info.image} is still being used`);
    throw err;
  }
}

/** Maps the image on this node (unless it already is) and returns its device path. */
export async function attachRbdDisk(
  host: VolumeHost,
  node: NodeVolumeContext,
  info: RbdVolumeInfo,
  key: string,
): Promise<string> {
  await ensureGlobalMountDir(node, info);
  const mapped = await waitForMappedDevice(host, node, info, 1);
  if (mapped !== undefined) return mapped;

  await waitUntilUnused(host, node, info, key);
  // Kubernetes runs `modprobe rbd` first and ignores its failure; `rbd map` loads the module itself.
  const result = await rbdMap(node.host, info, key);
  if (result.exitCode !== 0) {
    throw new Error(`rbd: map failed exit status ${result.exitCode}, rbd output: ${result.output}`);
  }
  const device = await waitForMappedDevice(host, node, info, rbdMapDeviceWaitAttempts);
  if (device === undefined) throw new Error(`Could not map image ${info.pool}/${info.image}, Timeout after 10s`);
  return device;
}
