/**
 * Evaluates a condition against the cluster as it is now, reading what `kubectl get` and the node
 * would show. A ref with `*` holds when some matching object satisfies the check.
 */
import type { KObject, Pod } from "../../api/objects.ts";
import { resolveResourceName } from "../../api/resources.ts";
import type { Cluster } from "../cluster.ts";
import type { Condition } from "./ast.ts";
import { mountHealthOf } from "./mount-health.ts";
import { isPattern, type ObjectRef, refNameMatches } from "./object-ref.ts";
import { propertyOf } from "./properties.ts";

export async function evaluateCondition(condition: Condition, cluster: Cluster): Promise<boolean> {
  switch (condition.type) {
    case "and":
      for (const operand of condition.operands) if (!(await evaluateCondition(operand, cluster))) return false;
      return true;
    case "or":
      for (const operand of condition.operands) if (await evaluateCondition(operand, cluster)) return true;
      return false;
    case "not":
      return !(await evaluateCondition(condition.operand, cluster));
    case "existence":
      return (await objectsOf(cluster, condition.object)).length > 0 === condition.present;
    case "property":
      return propertyHolds(cluster, condition.object, condition.property, condition.value);
    case "attachment-count":
      return (await attachmentCount(cluster, condition.volume)) === condition.count;
    case "mount": {
      const pods = (await objectsOf(cluster, condition.pod)) as Pod[];
      for (const pod of pods) {
        if ((await mountHealthOf(cluster, pod, condition.volume, condition.node)) === condition.health) return true;
      }
      return pods.length === 0 && condition.health === "absent";
    }
  }
}

/** The objects `ref` names: the one object, or every match of a pattern. */
export async function objectsOf(cluster: Cluster, ref: ObjectRef): Promise<KObject[]> {
  if (!isPattern(ref) && ref.name !== undefined) {
    // Every stored kind is a KObject; KindMap's precise types only differ in their optional fields.
    const object = (await cluster.tryGet(ref.kind, ref.namespace, ref.name)) as KObject | undefined;
    return object === undefined ? [] : [object];
  }
  const namespaced = resolveResourceName(ref.kind)?.namespaced ?? false;
  const objects = (await cluster.list(ref.kind, namespaced ? { namespace: ref.namespace } : {})) as KObject[];
  return objects.filter((object) => refNameMatches(ref, object.metadata?.name ?? ""));
}

async function propertyHolds(cluster: Cluster, ref: ObjectRef, name: string, value: string): Promise<boolean> {
  const property = propertyOf(ref.kind, name);
  if (property === undefined) throw new Error(`${ref.kind.toLowerCase()} has no property "${name}"`);
  return (await objectsOf(cluster, ref)).some((object) => property.read(object).includes(value));
}

/** VolumeAttachments of the PV; for a claim, of the PV it is bound to (none while unbound). */
async function attachmentCount(cluster: Cluster, volume: ObjectRef): Promise<number> {
  const volumeNames = new Set<string>();
  for (const object of await objectsOf(cluster, volume)) {
    if (volume.kind === "PersistentVolume") volumeNames.add(object.metadata?.name ?? "");
    const bound = volume.kind === "PersistentVolumeClaim" ? (object as { spec?: { volumeName?: string } }) : undefined;
    if (bound?.spec?.volumeName !== undefined) volumeNames.add(bound.spec.volumeName);
  }
  const attachments = await cluster.list("VolumeAttachment");
  return attachments.filter((attachment) => volumeNames.has(attachment.spec.source.persistentVolumeName ?? "")).length;
}
