/**
 * Whether an update carries the stored object's spec unchanged: the very same frozen object, as a
 * status write does (the store keeps the stored spec) and as a client that spreads a cached object
 * to change its metadata does. A frozen spec cannot have changed since it was validated on the
 * way in, so its validation and the spec immutability rules would find exactly what they found
 * then; kube-apiserver's status strategies do not look at the spec either.
 */
export function specUnchanged(newObject: { spec?: unknown }, oldObject: { spec?: unknown }): boolean {
  const spec = newObject.spec;
  return typeof spec === "object" && spec !== null && spec === oldObject.spec && Object.isFrozen(spec);
}
