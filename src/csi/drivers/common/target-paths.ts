/**
 * The file or directory a node plugin makes at NodePublishVolume's `target_path` (the CO creates
 * only its parent) and removes again at NodeUnpublishVolume, as the spec asks of a plugin: a
 * directory for a filesystem volume, a file for a block volume (the device is bound onto it).
 * Both are idempotent: a retry finds the work done.
 */
import { type Host, isHostError } from "../../../host/host.ts";
import { blockTargetFileMode, mountDirMode } from "./constants.ts";
import { step } from "./host-failures.ts";
import { isPresent } from "./host-paths.ts";

type TargetKind = "directory" | "file";

export async function createTargetPath(host: Host, path: string, kind: TargetKind, rpc: string): Promise<void> {
  await step(`${rpc}: creating ${path}`, async () => {
    if (await isPresent(host, path)) return;
    if (kind === "directory") {
      await host.mkdir(path, mountDirMode, { recursive: true });
      return;
    }
    const parent = path.slice(0, path.lastIndexOf("/")) || "/";
    await host.mkdir(parent, mountDirMode, { recursive: true });
    await host.writeFile(path, "", blockTargetFileMode);
  });
}

/** Removes what createTargetPath made; nothing there is success. */
export async function removeTargetPath(host: Host, path: string, rpc: string): Promise<void> {
  await step(`${rpc}: removing ${path}`, async () => {
    try {
      const stat = await host.lstat(path);
      if (stat.type === "directory") await host.rmdir(path);
      else await host.unlink(path);
    } catch (error) {
      if (!isHostError(error, "ENOENT")) throw error;
    }
  });
}
