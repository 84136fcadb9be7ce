/**
 * A consistent read of /proc/self/mountinfo: the kernel builds the file page by page, so a read
 * racing a mount or unmount can show a torn table. Read until two consecutive reads agree.
 */
import { readFile } from "node:fs/promises";
import type { MountInfo } from "../host.ts";
import { mountInfoConsistentReadAttempts } from "../mount/constants.ts";
import { parseMountInfo } from "../mount/mount-info.ts";
import { procSelfMountInfoPath } from "./constants.ts";
import { withHostErrors } from "./errno.ts";

export async function readMountInfo(path: string = procSelfMountInfoPath): Promise<MountInfo[]> {
  return parseMountInfo(await consistentRead(path, mountInfoConsistentReadAttempts));
}

/** The file's text once two consecutive reads return the same bytes, at most `attempts` reads after the first. */
export async function consistentRead(path: string, attempts: number): Promise<string> {
  const read = () => withHostErrors("open", path, () => readFile(path, "utf8"));
  let previous = await read();
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const current = await read();
    if (current === previous) return current;
    previous = current;
  }
  throw new Error(`could not get consistent content of ${path} after ${attempts} attempts`);
}
