/**
 * The `ready` marker emptyDir keeps in `pods/<uid>/plugins/kubernetes.io~empty-dir/<volume>/`
 * (Kubernetes' volumeutil.SetReady / IsReady): once present, a repeated SetUp knows the volume was
 * already prepared and does nothing.
 */
import { posix } from "node:path";
import type { Host } from "../../host/host.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { VolumeLogger } from "../volume-host.ts";

const readyFileName = "ready";
const readyDirMode = 0o750;
/** os.Create's 0666 under the usual 022 umask. */
const readyFileMode = 0o644;

/** True when `<dir>/ready` exists and is a regular file. */
export async function isReady(host: Host, dir: string, logger?: VolumeLogger): Promise<boolean> {
  const readyFile = posix.join(dir, readyFileName);
  try {
    const stat = await host.stat(readyFile);
    if (stat.type === "file") return true;
    logger?.warning(`ready-file is not a file: ${readyFile}`);
    return false;
  } catch {
    // Any failure to stat means "not ready", as in Kubernetes: SetUp then simply runs again.
    return false;
  }
}

/**
 * Creates `<dir>/ready`. Failures are logged, not returned, as in Kubernetes: the volume is usable,
 * and the next SetUp merely repeats idempotent work.
 */
export async function setReady(host: Host, dir: string, logger?: VolumeLogger): Promise<void> {
  try {
    await host.mkdir(dir, readyDirMode, { recursive: true });
  } catch (err) {
    logger?.warning(`Can't mkdir ${dir}: ${errorMessage(err)}`);
    return;
  }
  const readyFile = posix.join(dir, readyFileName);
  try {
    await host.writeFile(readyFile, new Uint8Array(0), readyFileMode);
  } catch (err) {
    logger?.warning(`Can't touch ${readyFile}: ${errorMessage(err)}`);
  }
}
