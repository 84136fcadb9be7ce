/**
 * Access-mode sets as Kubernetes writes them (v1helper.GetAccessModesAsString): the set's modes,
 * deduplicated, abbreviated and in a fixed order, joined by commas (`RWO,ROX`). The PV controller's
 * access-mode index keys by it, and kubectl's ACCESS MODES column shows it.
 */

/** Each mode with its abbreviation, in the order Kubernetes writes them into an index key. */
const abbreviations: ReadonlyArray<readonly [mode: string, abbreviation: string]> = [
  ["ReadWriteOnce", "RWO"],
  ["ReadOnlyMany", "ROX"],
  ["ReadWriteMany", "RWX"],
  ["ReadWriteOncePod", "RWOP"],
];

/** The index key of a set of access modes; unknown modes are left out, as Kubernetes does. */
export function accessModesString(modes: readonly string[] | undefined): string {
  const present = new Set(modes ?? []);
  return abbreviations
    .filter(([mode]) => present.has(mode))
    .map(([, abbreviation]) => abbreviation)
    .join(",");
}

/** The modes an index key stands for. */
export function accessModesFromKey(key: string): string[] {
  const present = new Set(key.split(","));
  return abbreviations.filter(([, abbreviation]) => present.has(abbreviation)).map(([mode]) => mode);
}
