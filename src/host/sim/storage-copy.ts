/**
 * A copy of a block device's content, as a storage system's snapshot or clone is: the bytes (or the
 * filesystem with every file, directory, symlink and mode) at the moment of the copy, independent
 * of the source afterwards. The copy may be larger than the source (a restore into a bigger disk);
 * its filesystem keeps the source's size until someone grows it, as on a real disk.
 */
import { BlockStorage } from "./block-storage.ts";
import { entryPairs } from "./directory-entries.ts";
import type { SimFilesystem } from "./filesystem.ts";

/** A bound on the entries one copy walks: a runaway tree fails loudly instead of hanging the simulation. */
const copyEntriesMax = 1_000_000;

function copyTree(
  from: SimFilesystem,
  fromDir: number,
  to: SimFilesystem,
  toDir: number,
  budget: { left: number },
): void {
  for (const [name, ino] of entryPairs(from.directory(fromDir).entries)) {
    budget.left -= 1;
    if (budget.left < 0) throw new Error(`storage copy: more than ${copyEntriesMax} entries`);
    const inode = from.inode(ino);
    const path = `/${name}`;
    if (inode.type === "file") {
      to.create(toDir, name, { type: "file", mode: inode.mode, data: inode.data, sizeBytes: inode.sizeBytes }, path);
    } else if (inode.type === "directory") {
      const made = to.create(toDir, name, { type: "directory", mode: inode.mode }, path);
      copyTree(from, ino, to, made, budget);
    } else if (inode.type === "symlink") {
      to.create(toDir, name, { type: "symlink", target: inode.target }, path);
    } else {
      to.create(toDir, name, { type: inode.type, mode: inode.mode, rdev: inode.rdev }, path);
    }
  }
}

/** A new storage of `sizeBytes` holding what `source` holds now. */
export function copyStorage(source: BlockStorage, sizeBytes: number): BlockStorage {
  const copy = new BlockStorage(sizeBytes);
  const content = source.content;
  if (content.kind === "filesystem") {
    const formatted = copy.format(content.fsType, content.uuid);
    formatted.fs.inode(formatted.fs.rootIno).mode = content.fs.inode(content.fs.rootIno).mode;
    copyTree(content.fs, content.fs.rootIno, formatted.fs, formatted.fs.rootIno, { left: copyEntriesMax });
  }
  copy.partitionTable = source.partitionTable;
  return copy;
}
