/**
 * Field paths in Kubernetes' notation (field.Path.String()): children joined by dots, list
 * positions and map keys in brackets — `spec.volumes[0].persistentVolumeClaim.claimName`,
 * `spec.resources[storage]`, `metadata.labels`.
 */

/** `parent.name`, or `name` at the root. */
export function child(parent: string, ...names: string[]): string {
  let path = parent;
  for (const name of names) path = path === "" ? name : `${path}.${name}`;
  return path;
}

/** `parent[index]`. */
export function index(parent: string, position: number): string {
  return `${parent}[${position}]`;
}

/** `parent[key]`, as Kubernetes writes a map entry (no quotes around the key). */
export function key(parent: string, mapKey: string): string {
  return `${parent}[${mapKey}]`;
}
