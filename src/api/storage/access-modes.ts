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
  // Allocates nothing for one mode (the usual case): the PV controller keys every volume update by it.
  let key = "";
  if (modes === undefined || modes.length === 0) return key;
  for (const [mode, abbreviation] of abbreviations) {
    if (!modes.includes(mode)) continue;
    key = key === "" ? abbreviation : `${key},${abbreviation}`;
  }
  return key;
}

/** The modes an index key stands for. */
export function accessModesFromKey(key: string): string[] {
  const present = new Set(key.split(","));
  return abbreviations.filter(([, abbreviation]) => present.has(abbreviation)).map(([mode]) => mode);
}
