/**
 * Field paths in Kubernetes' notation (field.Path.String()): children joined by dots, list
 * positions and map keys in brackets — `spec.volumes[0].persistentVolumeClaim.claimName`,
 * `spec.resources[storage]`, `metadata.labels`.
 */

/**
 * `parent.name`, or `name` at the root; `parent.name.grandchild` with a third part. Two fixed
 * parameters, not a rest list: validation builds several paths per field it reads, and each call
 * allocated its list.
 */
export function child(parent: string, name: string, grandchild?: string): string {
  const path = parent === "" ? name : `${parent}.${name}`;
  if (grandchild === undefined) return path;
  return path === "" ? grandchild : `${path}.${grandchild}`;
}

/** `parent[index]`. */
export function index(parent: string, position: number): string {
  return `${parent}[${position}]`;
}

/** `parent[key]`, as Kubernetes writes a map entry (no quotes around the key). */
export function key(parent: string, mapKey: string): string {
  return `${parent}[${mapKey}]`;
}
