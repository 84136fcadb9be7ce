/**
 * DefaultStorageClass: a claim created without `spec.storageClassName` gets the default class's
 * name at admission. Of several classes annotated default, the newest wins (Kubernetes 1.28+),
 * equal ages by name. A claim that sets the class, even to "" (no class), keeps it; so does one
 * with the beta storage-class annotation.
 */
import type { KObject, StorageClass } from "../objects.ts";
import { resourceForKind } from "../resources.ts";
import type { Store } from "../store/store.ts";

const isDefaultClassAnnotation = "storageclass.kubernetes.io/is-default-class";
const betaIsDefaultClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class";
const betaClaimClassAnnotation = "volume.beta.kubernetes.io/storage-class";

function isDefault(storageClass: StorageClass): boolean {
  const annotations = storageClass.metadata?.annotations ?? {};
  return annotations[isDefaultClassAnnotation] === "true" || annotations[betaIsDefaultClassAnnotation] === "true";
}

/** Newest first; RFC 3339 timestamps of one format compare as text. */
function newestFirst(a: StorageClass, b: StorageClass): number {
  const byAge = (b.metadata?.creationTimestamp ?? "").localeCompare(a.metadata?.creationTimestamp ?? "");
  return byAge !== 0 ? byAge : (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? "");
}

/** The default StorageClass, or undefined when no class is marked default. */
async function defaultStorageClassOf(store: Store): Promise<StorageClass | undefined> {
  const type = resourceForKind("StorageClass");
  if (type === undefined) return undefined;
  const { items } = await store.list<StorageClass & KObject>(type);
  return items.filter(isDefault).sort(newestFirst)[0];
}

/** The claim with the default class filled in where it names none (the same claim otherwise). */
export async function withDefaultStorageClass(store: Store, claim: KObject): Promise<KObject> {
  const spec = (claim.spec ?? {}) as { storageClassName?: string | null };
  if (spec.storageClassName !== undefined && spec.storageClassName !== null) return claim;
  if (claim.metadata?.annotations?.[betaClaimClassAnnotation] !== undefined) return claim;
  const storageClass = await defaultStorageClassOf(store);
  const name = storageClass?.metadata?.name;
  if (name === undefined) return claim;
  return { ...claim, spec: { ...spec, storageClassName: name } };
}
