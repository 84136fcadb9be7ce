/**
 * Removal of pod directories the kubelet no longer knows (kubelet_volumes.go's
 * cleanupOrphanedPodDirs): a pod deleted while the kubelet was down leaves `<root>/pods/<uid>`.
 * It is removed only after its volumes are gone, and never across a mount boundary: volume
 * directories are removed with rmdir (which refuses a mount point or a non-empty directory), the
 * rest with the one-filesystem removal, so a still-mounted volume's data can never be deleted.
 */
import { posix } from "node:path";
import { type Host, isHostError } from "../../host/host.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { podDir, podVolumeSubpathsDir, podVolumesDir } from "../../volume/paths.ts";
import { removeAllOneFilesystem } from "../../volume/util/remove-all.ts";
import { listPodsFromDisk, podVolumeDirs } from "./pod-volume-dirs.ts";

interface OrphanCleanupContext {
  host: Host;
  rootDir: string;
  logger: Logger;
  /** Whether the pod's volumes may still be mounted (the volume manager's podVolumesExist). */
  podVolumesExist: (podUID: string) => Promise<boolean>;
}

async function exists(host: Host, path: string): Promise<boolean> {
  try {
    await host.lstat(path);
    return true;
  } catch (err) {
    if (isHostError(err, "ENOENT")) return false;
    throw err;
  }
}

async function rmdirIfPresent(host: Host, path: string): Promise<void> {
  try {
    await host.rmdir(path);
  } catch (err) {
    if (!isHostError(err, "ENOENT")) throw err;
  }
}

/** rmdir of every volume directory, their plugin directories and `volumes/`; never recursive. */
async function removeOrphanedPodVolumeDirs(context: OrphanCleanupContext, uid: string): Promise<string[]> {
  const { host, rootDir, logger } = context;
  let dirs: Awaited<ReturnType<typeof podVolumeDirs>>;
  try {
    dirs = await podVolumeDirs(host, rootDir, uid);
  } catch (err) {
    return [`Orphaned pod "${uid}" found, but error ${errorMessage(err)} occurred during reading volume dir from disk`];
  }
  const errors: string[] = [];
  for (const dir of dirs) {
    try {
      await host.rmdir(dir.volumePath);
      logger.info("Cleaned up orphaned volume from pod", { podUID: uid, path: dir.volumePath });
    } catch (err) {
      errors.push(
        `orphaned pod "${uid}" found, but failed to rmdir() volume at path ${dir.volumePath}: ${errorMessage(err)}`,
      );
    }
  }
  if (errors.length > 0) return [`Orphaned pod "${uid}" found, but volume paths are still present on disk`, ...errors];
  if (await exists(host, podVolumeSubpathsDir(rootDir, uid))) {
    return [`orphaned pod "${uid}" found, but volume subpaths are still present on disk`];
  }
  const volumesDir = podVolumesDir(rootDir, uid);
  try {
    const pluginDirs = (await exists(host, volumesDir)) ? await host.readdir(volumesDir) : [];
    for (const plugin of pluginDirs) await host.rmdir(posix.join(volumesDir, plugin));
    await rmdirIfPresent(host, volumesDir);
  } catch (err) {
    return [
      `orphaned pod "${uid}" found, but error occurred when trying to remove the volumes dir: ${errorMessage(err)}`,
    ];
  }
  return [];
}

/** Removes one orphaned pod directory; returns what prevented it. */
async function removeOrphanedPod(context: OrphanCleanupContext, uid: string): Promise<string[]> {
  const { host, rootDir, logger } = context;
  if (await context.podVolumesExist(uid)) {
    logger.info("Orphaned pod found, but volumes are not cleaned up", { podUID: uid });
    return [];
  }
  const volumeErrors = await removeOrphanedPodVolumeDirs(context, uid);
  if (volumeErrors.length > 0) return volumeErrors;
  const dir = podDir(rootDir, uid);
  const errors: string[] = [];
  for (const name of await host.readdir(dir)) {
    const path = posix.join(dir, name);
    try {
      await removeAllOneFilesystem(host, path);
    } catch (err) {
      errors.push(
        `orphaned pod "${uid}" found, but error occurred when trying to remove subdir "${path}": ${errorMessage(err)}`,
      );
    }
  }
  if (errors.length > 0) return errors;
  try {
    await host.rmdir(dir);
    logger.info("Orphaned pod found, removing", { podUID: uid });
  } catch (err) {
    errors.push(
      `orphaned pod "${uid}" found, but error occurred when trying to remove the pod directory: ${errorMessage(err)}`,
    );
  }
  return errors;
}

/**
 * Removes the directories of pods that are neither known (`knownPodUIDs`: the pod manager's pods and
 * the runtime's running pods) nor still holding volumes. Returns every problem met, one sentence each.
 */
export async function cleanupOrphanedPodDirs(
  context: OrphanCleanupContext,
  knownPodUIDs: ReadonlySet<string>,
): Promise<string[]> {
  const errors: string[] = [];
  for (const uid of await listPodsFromDisk(context.host, context.rootDir)) {
    if (knownPodUIDs.has(uid)) continue;
    errors.push(...(await removeOrphanedPod(context, uid)));
  }
  return errors;
}
