/**
 * `cp -a --sparse=always FROM TO` on the simulated node: a file, or a directory and everything
 * under it, copied through the node's own file calls (so mounts, read-only filesystems and
 * errnos act as for any other write). Files keep their bytes, size, holes and mode, and what the
 * kernel keeps beside a disk image (the filesystem a loop device over it shows); symlinks are
 * copied as links; sockets and devices are skipped, as a volume's data never holds them.
 */
import { posix } from "node:path";
import { HostError } from "../host.ts";
import type { BootState, SimKernel } from "./sim-kernel.ts";

/** A bound on the entries one copy walks: a runaway tree fails loudly instead of hanging the simulation. */
const copyTreeEntriesMax = 1_000_000;

export async function copyTreeOnNode(kernel: SimKernel, state: BootState, from: string, to: string): Promise<void> {
  const source = await state.vfs.lstat(from);
  if ((await state.vfs.walkOrUndefined(to, "lstat")) !== undefined || (await isSymlink(state, to))) {
    throw new HostError("EEXIST", "cp", to);
  }
  await state.vfs.stat(posix.dirname(to));
  const budget = { left: copyTreeEntriesMax };
  await copyEntry(kernel, state, from, to, source.type, budget);
}

async function isSymlink(state: BootState, path: string): Promise<boolean> {
  try {
    return (await state.vfs.lstat(path)).type === "symlink";
  } catch (error) {
    if (error instanceof HostError && error.code === "ENOENT") return false;
    throw error;
  }
}

async function copyEntry(
  kernel: SimKernel,
  state: BootState,
  from: string,
  to: string,
  type: string,
  budget: { left: number },
): Promise<void> {
  budget.left -= 1;
  if (budget.left < 0) throw new HostError("EIO", "cp", from, `more than ${copyTreeEntriesMax} entries to copy`);
  if (type === "file") return kernel.copyFile(state, from, to);
  if (type === "symlink") return state.vfs.symlink(await state.vfs.readlink(from), to);
  if (type !== "directory") return;
  const { mode } = await state.vfs.lstat(from);
  await state.vfs.mkdir(to, mode, false);
  for (const name of (await state.vfs.readdir(from)).sort()) {
    const child = posix.join(from, name);
    await copyEntry(kernel, state, child, posix.join(to, name), (await state.vfs.lstat(child)).type, budget);
  }
  // mkdir applied the mode already; chmod again in case the tree was made read-only while copying into it.
  await state.vfs.chmod(to, mode);
}
