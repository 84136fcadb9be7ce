/** Small path questions a driver asks its Host. */
import { type Host, isHostError } from "../../../host/host.ts";

/** Whether anything (even a dangling symlink) is at `path`; other failures are thrown. */
export async function isPresent(host: Host, path: string): Promise<boolean> {
  try {
    await host.lstat(path);
    return true;
  } catch (error) {
    if (isHostError(error, "ENOENT")) return false;
    throw error;
  }
}
