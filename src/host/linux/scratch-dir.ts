/**
 * Test support: a scratch directory for real-mount tests, and the check that a test left nothing
 * mounted below it before the directory is removed.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isPathWithin } from "../mount/mount-points.ts";
import { readMountInfo } from "./mount-info-reader.ts";

export async function makeScratchDir(label: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `kvol-${label}-`));
}

/** The mount points at or below `dir`. */
export async function mountsUnder(dir: string): Promise<string[]> {
  return (await readMountInfo()).map((mount) => mount.mountPoint).filter((mountPoint) => isPathWithin(mountPoint, dir));
}

/** Fails when anything is still mounted below `dir`; otherwise removes it (nothing mounted, so no data of a mount is touched). */
export async function removeScratchDir(dir: string): Promise<void> {
  assert.deepEqual(await mountsUnder(dir), [], `mounts left behind under ${dir}`);
  await rm(dir, { recursive: true, force: true });
}
