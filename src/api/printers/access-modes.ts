/**
 * Access modes as kubectl abbreviates them (`RWO,ROX,RWX,RWOP`), in Kubernetes' fixed order
 * whatever the order in the object, each once.
 */
const abbreviations: readonly (readonly [string, string])[] = [
  ["ReadWriteOnce", "RWO"],
  ["ReadOnlyMany", "ROX"],
  ["ReadWriteMany", "RWX"],
  ["ReadWriteOncePod", "RWOP"],
];

export function accessModesText(modes: readonly string[] | undefined): string {
  const given = new Set(modes ?? []);
  return abbreviations
    .filter(([mode]) => given.has(mode))
    .map(([, short]) => short)
    .join(",");
}
