/**
 * Access-mode sets as the PV controller's index names them (v1helper.GetAccessModesAsString): the
 * set's modes, deduplicated, abbreviated and in a fixed order, joined by commas (`RWO,ROX`).
 */

/** Each mode with its abbreviation, in the order Kubernetes writes them into an index key. */
const abbreviations: ReadonlyArray<readonly [mode: string, abbreviation: string]> = [
  ["ReadWriteOnce", "RWO"],
  ["ReadOnlyMany", "ROX"],
  ["ReadWriteMany", "RWX"],
  ["ReadWriteOncePod", "RWOP"],
];

/** The index key of a set of access modes; unknown modes are left out, as Kubernetes does. */
export function accessModesKey(modes: readonly string[] | undefined): string {
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
