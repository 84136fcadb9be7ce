/**
 * Which secrets a node may read, as Kubernetes' Node authorizer decides with its graph: those that
 * the pods bound to the node reference (secret volumes, projected sources, env, image pull
 * secrets, `secretRef`s of volume sources) and those that the persistent volumes of their claims
 * reference (CSI stage/publish/expand secrets, RBD and flex `secretRef`s).
 */
import type { KObject, PersistentVolume, PersistentVolumeClaim, Pod } from "../../api/objects.ts";
import { type ResourceType, resourceForKind } from "../../api/resources.ts";
import type { Store } from "../../api/store/store.ts";

/** How deep a reference may sit in a pod or volume spec; real specs are far shallower. */
const maxSpecDepth = 12;

interface SecretName {
  namespace: string;
  name: string;
}

function typeOf(kind: "Pod" | "PersistentVolumeClaim" | "PersistentVolume"): ResourceType {
  const type = resourceForKind(kind);
  if (type === undefined) throw new Error(`node secret references: kind ${kind} is not in the resource registry`);
  return type;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `secret`, `secretRef`, `secretKeyRef`, `nodePublishSecretRef`, … : an object naming a secret. */
function isSecretReferenceKey(key: string): boolean {
  return key === "secret" || key === "secretKeyRef" || /secretref$/i.test(key);
}

/** Every secret `spec` names; a reference without a namespace is in `defaultNamespace`. */
function secretReferences(spec: unknown, defaultNamespace: string): SecretName[] {
  const found: SecretName[] = [];
  const visit = (value: unknown, key: string, depth: number): void => {
    if (depth > maxSpecDepth) return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, key, depth + 1);
      return;
    }
    if (key === "secretName" && typeof value === "string") found.push({ namespace: defaultNamespace, name: value });
    if (!isRecord(value)) return;
    if ((isSecretReferenceKey(key) || key === "imagePullSecrets") && typeof value.name === "string") {
      const namespace =
        typeof value.namespace === "string" && value.namespace !== "" ? value.namespace : defaultNamespace;
      found.push({ namespace, name: value.name });
    }
    for (const [childKey, child] of Object.entries(value)) visit(child, childKey, depth + 1);
  };
  visit(spec, "", 0);
  return found;
}

async function volumeOfClaim(
  store: Store,
  namespace: string,
  claimName: string,
): Promise<PersistentVolume | undefined> {
  const claims = await store.list<PersistentVolumeClaim & KObject>(typeOf("PersistentVolumeClaim"), {
    namespace,
    fieldSelector: `metadata.name=${claimName}`,
  });
  const volumeName = claims.items[0]?.spec?.volumeName;
  if (!volumeName) return undefined;
  const volumes = await store.list<PersistentVolume & KObject>(typeOf("PersistentVolume"), {
    fieldSelector: `metadata.name=${volumeName}`,
  });
  return volumes.items[0];
}

async function referencesOfPod(store: Store, pod: Pod): Promise<SecretName[]> {
  const namespace = pod.metadata?.namespace ?? "";
  const references = secretReferences(pod.spec, namespace);
  for (const volume of pod.spec?.volumes ?? []) {
    const claimName = volume.persistentVolumeClaim?.claimName;
    if (claimName === undefined) continue;
    const pv = await volumeOfClaim(store, namespace, claimName);
    if (pv !== undefined) references.push(...secretReferences(pv.spec, namespace));
  }
  return references;
}

export async function secretReferencedByNode(
  store: Store,
  nodeName: string,
  namespace: string,
  name: string,
): Promise<boolean> {
  const pods = await store.list<Pod & KObject>(typeOf("Pod"), { fieldSelector: `spec.nodeName=${nodeName}` });
  for (const pod of pods.items) {
    const references = await referencesOfPod(store, pod);
    if (references.some((reference) => reference.namespace === namespace && reference.name === name)) return true;
  }
  return false;
}
