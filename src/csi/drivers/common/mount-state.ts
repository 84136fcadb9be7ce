/**
 * What is at a staging or target path now: nothing, a plain directory or file, a working mount, or
 * a corrupted one (its FUSE daemon died: ENOTCONN; a stale handle: ESTALE). Node RPCs decide from
 * this whether the work is already done (idempotency), still to do, or must be redone: a corrupted
 * mount is unmounted and mounted again, which is how a re-publish repairs a pod's volume after a
 * node plugin restart (seed 003) without restarting the pod.
 */
import type { Host, MountInfo } from "../../../host/host.ts";
import { pathExists } from "../../../host/mount/mount-points.ts";

export type MountState =
  | { kind: "absent" }
  | { kind: "notMounted" }
  | { kind: "mounted"; entry: MountInfo }
  | { kind: "corrupted"; entry: MountInfo; error: Error };

/** The state of `path`; a stat failure that is neither ENOENT nor a corrupted mount is thrown. */
export async function mountStateAt(host: Host, path: string): Promise<MountState> {
  const entry = topMountAt(await host.mountInfo(), path);
  const existence = await pathExists(host, path);
  if (existence.error !== undefined && !(existence.exists && entry !== undefined)) throw existence.error;
  if (entry === undefined) return existence.exists ? { kind: "notMounted" } : { kind: "absent" };
  if (existence.error !== undefined) return { kind: "corrupted", entry, error: existence.error };
  return { kind: "mounted", entry };
}

/** The mount that covers the others at `path` (the last one mounted there). */
function topMountAt(mounts: readonly MountInfo[], path: string): MountInfo | undefined {
  return mounts.findLast((mount) => mount.mountPoint === path);
}

/** Whether `mountPath` shows the same file as `sourcePath` (a bind mount of it, or the file itself). */
export async function showsSameFile(host: Host, mountPath: string, sourcePath: string): Promise<boolean> {
  const [mounted, source] = await Promise.all([host.stat(mountPath), host.stat(sourcePath)]);
  return mounted.dev === source.dev && mounted.ino === source.ino;
}

/** Whether the mount was made read-only (its per-mount options start with `ro`). */
export function isReadOnlyMount(entry: MountInfo): boolean {
  return entry.options.includes("ro");
}
