/**
 * Shared, frozen lists of mount options. Every mount keeps its options (`rw,relatime`), and a node
 * holds two mounts per running pod whose lists are nearly always one of a handful: one frozen list
 * per distinct content serves them all, instead of an array per mount.
 */

/** Distinct lists kept; past this (options naming per-volume values) a list is frozen unshared. */
const maxSharedLists = 256;

/** By content, as JSON: no two different lists (`["a\0b"]`, `["a", "b"]`) share a key. */
const shared = new Map<string, readonly string[]>();

/** A frozen list with the content of `options`, shared with every other list of that content. */
export function sharedOptionList(options: readonly string[]): readonly string[] {
  const key = JSON.stringify(options);
  const existing = shared.get(key);
  if (existing !== undefined) return existing;
  const list = Object.freeze(options.slice());
  if (shared.size < maxSharedLists) shared.set(key, list);
  return list;
}
