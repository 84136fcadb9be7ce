/**
 * A simulated directory's entries (name → inode number), in the order they were made, as readdir
 * lists them. Most directories a node holds have one or two entries (a pod's `volumes`, its
 * plugin's folder, the volume's mount point), and a Map for each was a kilobyte per running pod:
 * one entry is a `OneEntry` (an object of two fields, where an array costs its own object and a
 * backing store), up to `maxInlineEntries` a flat `[name, ino, name, ino, …]` array, beyond that a
 * Map. All keep Map's order: a new name goes last, a replaced one keeps its place.
 */

type InlineEntries = readonly (string | number)[];

/** A directory's only entry. */
class OneEntry {
  constructor(
    readonly name: string,
    readonly ino: number,
  ) {}
}

export type DirectoryEntries = OneEntry | InlineEntries | ReadonlyMap<string, number>;

/** Entries kept inline; a directory with more (the node's pods, its devices) gets a Map. */
const maxInlineEntries = 8;

/** Every empty directory's entries. */
export const noEntries: DirectoryEntries = Object.freeze([]);

function isInline(entries: DirectoryEntries): entries is InlineEntries {
  return Array.isArray(entries);
}

export function entryIno(entries: DirectoryEntries, name: string): number | undefined {
  if (entries instanceof OneEntry) return entries.name === name ? entries.ino : undefined;
  if (!isInline(entries)) return entries.get(name);
  for (let i = 0; i < entries.length; i += 2) {
    if (entries[i] === name) return entries[i + 1] as number;
  }
  return undefined;
}

/**
 * `entryIno(entries, path.slice(start, end))` without cutting the name out of the path where the
 * entries are inline: a walk asks this for every component of every path.
 */
export function entryInoAt(entries: DirectoryEntries, path: string, start: number, end: number): number | undefined {
  const length = end - start;
  if (entries instanceof OneEntry) {
    const name = entries.name;
    return name.length === length && path.startsWith(name, start) ? entries.ino : undefined;
  }
  if (!isInline(entries)) return entries.get(path.slice(start, end));
  for (let i = 0; i < entries.length; i += 2) {
    const name = entries[i] as string;
    if (name.length === length && path.startsWith(name, start)) return entries[i + 1] as number;
  }
  return undefined;
}

export function entryCount(entries: DirectoryEntries): number {
  if (entries instanceof OneEntry) return 1;
  return isInline(entries) ? entries.length / 2 : entries.size;
}

/** The names, in readdir order. */
export function entryNames(entries: DirectoryEntries): string[] {
  if (entries instanceof OneEntry) return [entries.name];
  if (!isInline(entries)) return [...entries.keys()];
  const names: string[] = [];
  for (let i = 0; i < entries.length; i += 2) names.push(entries[i] as string);
  return names;
}

/** (name, inode number) pairs, in readdir order. */
export function entryPairs(entries: DirectoryEntries): [string, number][] {
  if (entries instanceof OneEntry) return [[entries.name, entries.ino]];
  if (!isInline(entries)) return [...entries];
  const pairs: [string, number][] = [];
  for (let i = 0; i < entries.length; i += 2) pairs.push([entries[i] as string, entries[i + 1] as number]);
  return pairs;
}

/**
 * The first `length` slots of `entries` (the rest left to fill) in an array of exactly that length:
 * a spread or a push leaves room to grow, several times what one entry needs.
 */
function copyOf(entries: InlineEntries, length: number): (string | number)[] {
  const copy = new Array<string | number>(length);
  for (let i = 0; i < length && i < entries.length; i++) copy[i] = entries[i] as string | number;
  return copy;
}

/** `entries` with `name` naming `ino`: the same Map changed, or new inline entries (never changed in place). */
export function withEntry(entries: DirectoryEntries, name: string, ino: number): DirectoryEntries {
  if (entries instanceof OneEntry) {
    return entries.name === name ? new OneEntry(name, ino) : [entries.name, entries.ino, name, ino];
  }
  if (!isInline(entries)) return (entries as Map<string, number>).set(name, ino);
  if (entries.length === 0) return new OneEntry(name, ino);
  for (let i = 0; i < entries.length; i += 2) {
    if (entries[i] === name) {
      const replaced = copyOf(entries, entries.length);
      replaced[i + 1] = ino;
      return replaced;
    }
  }
  if (entries.length / 2 < maxInlineEntries) {
    const grown = copyOf(entries, entries.length + 2);
    grown[entries.length] = name;
    grown[entries.length + 1] = ino;
    return grown;
  }
  const map = new Map<string, number>();
  for (let i = 0; i < entries.length; i += 2) map.set(entries[i] as string, entries[i + 1] as number);
  return map.set(name, ino);
}

/** `entries` without `name`; an emptied directory shares `noEntries` again. */
export function withoutEntry(entries: DirectoryEntries, name: string): DirectoryEntries {
  if (entries instanceof OneEntry) return entries.name === name ? noEntries : entries;
  if (!isInline(entries)) {
    const map = entries as Map<string, number>;
    map.delete(name);
    return map.size === 0 ? noEntries : map;
  }
  for (let i = 0; i < entries.length; i += 2) {
    if (entries[i] !== name) continue;
    if (entries.length === 2) return noEntries;
    if (entries.length === 4)
      return i === 0
        ? new OneEntry(entries[2] as string, entries[3] as number)
        : new OneEntry(entries[0] as string, entries[1] as number);
    const shrunk = copyOf(entries, entries.length - 2);
    for (let j = i; j < shrunk.length; j++) shrunk[j] = entries[j + 2] as string | number;
    return shrunk;
  }
  return entries;
}
