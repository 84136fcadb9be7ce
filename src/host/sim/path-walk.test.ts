/**
 * The walk exists twice: `resolveAtOnce` (no await, for walks that meet no mount or access check)
 * and `walkAwaiting`. On a single filesystem both must give the same answer: the same location, or
 * the same errno and message. This test builds a random tree and compares them over random paths.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rng } from "../../runtime/rng.ts";
import { HostError } from "../host.ts";
import { SimFilesystem } from "./filesystem.ts";
import { MountTable } from "./mount-table.ts";
import { PathWalker } from "./path-walk.ts";
import { Cancellation } from "./sim-wait.ts";
import type { Superblock } from "./superblock.ts";

interface WalkOptions {
  followLast: boolean;
}

/** The two copies of the walk, reached past `private` (they are what this test compares). */
interface WalkCopies {
  resolveAtOnce(path: string, syscall: string, options: WalkOptions): unknown;
  walkAwaiting(path: string, syscall: string, cancellation: Cancellation, options: WalkOptions): Promise<unknown>;
}

const names = ["a", "b", "c", "dir", "file", "link", "loop"];

/** Links `/chain1` … `/chainN` each naming the one before, down to the directory `/chain0`. */
const chainLength = 44;

function randomTree(rng: Rng): { walker: PathWalker; dirs: string[] } {
  const fs = new SimFilesystem();
  const superblock: Superblock = {
    dev: 1,
    majorMinor: "0:1",
    fs,
    fsType: "ext4",
    source: "/dev/sda1",
    superOptions: ["rw"],
    device: undefined,
  };
  const dirs: { path: string; ino: number }[] = [{ path: "", ino: fs.rootIno }];
  // Around Linux's limit of 40 links a path may follow: one more or less must give the same ELOOP or not.
  dirs.push({ path: "/chain0", ino: fs.create(fs.rootIno, "chain0", { type: "directory", mode: 0o755 }, "/chain0") });
  for (let link = 1; link <= chainLength; link++) {
    fs.create(fs.rootIno, `chain${link}`, { type: "symlink", target: `/chain${link - 1}` }, `/chain${link}`);
  }
  for (let i = 0; i < 60; i++) {
    const parent = rng.pick(dirs);
    const name = rng.pick(names) + (rng.chance(0.5) ? String(rng.int(0, 3)) : "");
    if (fs.lookup(parent.ino, name) !== undefined) continue;
    const path = `${parent.path}/${name}`;
    const kind = rng.int(0, 9);
    if (kind < 4) {
      dirs.push({ path, ino: fs.create(parent.ino, name, { type: "directory", mode: 0o755 }, path) });
    } else if (kind < 6) {
      fs.create(parent.ino, name, { type: "file", mode: 0o644, data: new Uint8Array(1) }, path);
    } else {
      fs.create(parent.ino, name, { type: "symlink", target: randomTarget(rng, dirs, parent.path, path) }, path);
    }
  }
  return { walker: new PathWalker(new MountTable(superblock, 1)), dirs: dirs.map((dir) => dir.path) };
}

/** Absolute, relative, dangling, self-referring (looping) and `..`-laden targets. */
function randomTarget(rng: Rng, dirs: readonly { path: string }[], parentPath: string, ownPath: string): string {
  switch (rng.int(0, 5)) {
    case 0:
      return rng.pick(dirs).path || "/";
    case 1:
      return ownPath;
    case 2:
      return `${rng.pick(names)}/${rng.pick(names)}`;
    case 3:
      return `../${rng.pick(names)}`;
    case 4:
      return `${parentPath}/missing/../${rng.pick(names)}`;
    default:
      return `./${rng.pick(names)}/`;
  }
}

function randomPath(rng: Rng, dirs: readonly string[]): string {
  const parts: string[] = [];
  const count = rng.int(0, 5);
  for (let i = 0; i < count; i++) {
    parts.push(rng.pick([...names, `${rng.pick(names)}${rng.int(0, 3)}`, ".", "..", ""]));
  }
  const base = rng.chance(0.1) ? `/chain${rng.int(36, chainLength)}` : rng.chance(0.5) ? rng.pick(dirs) : "";
  let path = `${base}/${parts.join("/")}`;
  if (rng.chance(0.1)) path = path.slice(1); // relative: EINVAL from both
  if (rng.chance(0.2)) path += "/";
  return path;
}

type Outcome = { ino: number; path: string; mount: number } | { errno: string; message: string };

function outcomeOfError(error: unknown): Outcome {
  if (!(error instanceof HostError)) throw error;
  return { errno: error.code, message: error.message };
}

function atOnce(walker: WalkCopies, path: string, options: WalkOptions): Outcome | "mustAwait" {
  let resolved: unknown;
  try {
    resolved = walker.resolveAtOnce(path, "stat", options);
  } catch (error) {
    return outcomeOfError(error);
  }
  if (typeof resolved === "string") {
    return { errno: resolved, message: new HostError(resolved as HostError["code"], "stat", path).message };
  }
  if (typeof resolved === "symbol") return "mustAwait";
  const location = resolved as { ino: number; path: string; mount: { id: number } };
  return { ino: location.ino, path: location.path, mount: location.mount.id };
}

async function awaiting(walker: WalkCopies, path: string, options: WalkOptions): Promise<Outcome> {
  try {
    const location = (await walker.walkAwaiting(path, "stat", new Cancellation(), options)) as {
      ino: number;
      path: string;
      mount: { id: number };
    };
    return { ino: location.ino, path: location.path, mount: location.mount.id };
  } catch (error) {
    return outcomeOfError(error);
  }
}

describe("path walk: the walk at once and the awaiting walk agree", () => {
  it("on random trees and paths: the same location, or the same errno and message", async () => {
    const rng = new Rng(20261127);
    const seen = new Set<string>();
    for (let tree = 0; tree < 20; tree++) {
      const { walker, dirs } = randomTree(rng);
      const copies = walker as unknown as WalkCopies;
      for (let i = 0; i < 200; i++) {
        const path = randomPath(rng, dirs);
        const options = { followLast: rng.chance(0.5) };
        const fast = atOnce(copies, path, options);
        assert.notEqual(fast, "mustAwait", `${path}: no mount and no access check, so nothing to await`);
        const slow = await awaiting(copies, path, options);
        assert.deepEqual(fast, slow, `${path} (followLast ${options.followLast})`);
        seen.add("errno" in slow ? slow.errno : "found");
      }
    }
    // The random paths reach every outcome the walk has, or the comparison proves little.
    assert.deepEqual([...seen].sort(), ["EINVAL", "ELOOP", "ENOENT", "ENOTDIR", "found"]);
  });
});
