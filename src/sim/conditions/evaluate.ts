/**
 * Evaluates a condition against the cluster as it is now, reading what `kubectl get` and the node
 * would show. A name pattern is bound to one object where the parser put its `bind`
 * (`bind-patterns.ts`): the part holds when some matching object makes it hold; when no object
 * matches, the pattern names nothing (no property holds, `is absent` does, counts are 0).
 */
import type { KObject, Node, PersistentVolume, Pod } from "../../api/objects.ts";
import { objectKey } from "../../api/objects.ts";
import { resolveResourceName } from "../../api/resources.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import { identityOfPersistentVolume } from "../invariants/storage-identity.ts";
import { type Condition, type CountCheck, countHolds, type NodeVolumeList, type VolumeRef } from "./ast.ts";
import { isBindablePattern, patternKey } from "./bind-patterns.ts";
import { mountHealthOf } from "./mount-health.ts";
import { isPattern, type ObjectRef, refNameMatches } from "./object-ref.ts";
import { propertyOf } from "./properties.ts";
import type { WriteCounts } from "./write-counts.ts";

/** What a bound pattern stands for: an object (or only the key of one that was written and is gone). */
interface Bound {
  readonly key: string;
  readonly object?: KObject;
}

/** Pattern key → the object it is bound to; null when no object matches it. */
type Bindings = ReadonlyMap<string, Bound | null>;

interface Evaluation {
  readonly cluster: Cluster;
  readonly writes: WriteCounts | undefined;
  readonly bindings: Bindings;
}

/**
 * Whether `condition` holds now. `writes` answers `writes to …` checks (the scenario runner
 * records them); evaluating one without it is an error.
 */
export async function evaluateCondition(
  condition: Condition,
  cluster: Cluster,
  writes?: WriteCounts,
): Promise<boolean> {
  return evaluate(condition, { cluster, writes, bindings: new Map() });
}

async function evaluate(condition: Condition, context: Evaluation): Promise<boolean> {
  const { cluster } = context;
  switch (condition.type) {
    case "and":
      for (const operand of condition.operands) if (!(await evaluate(operand, context))) return false;
      return true;
    case "or":
      for (const operand of condition.operands) if (await evaluate(operand, context)) return true;
      return false;
    case "not":
      return !(await evaluate(condition.operand, context));
    case "bind":
      return evaluateBind(condition.pattern, condition.body, context);
    case "existence":
      return (await refObjects(context, condition.object)).length > 0 === condition.present;
    case "property":
      return propertyHolds(context, condition.object, condition.property, condition.value);
    case "attachment-count":
      return countHolds(condition.count, await attachmentCount(context, condition.volume));
    case "mount": {
      const pods = (await refObjects(context, condition.pod)) as Pod[];
      for (const pod of pods) {
        const node = condition.node ?? pod.spec?.nodeName;
        const health = node === undefined ? "absent" : await mountHealthOf(cluster, pod, condition.volume, node);
        if (health === condition.health) return true;
      }
      return pods.length === 0 && condition.health === "absent";
    }
    case "node-volumes-contain":
      return nodeVolumesContain(context, condition.node, condition.list, condition.volume);
    case "node-volumes-count":
      return nodeVolumesCount(context, condition.node, condition.list, condition.count);
    case "write-count":
      return writeCountHolds(context, condition.object, condition.status, condition.windowMs, condition.count);
  }
}

/** Tries each object the pattern matches (and, for write counts, each written key); null when none. */
async function evaluateBind(pattern: ObjectRef, body: Condition, context: Evaluation): Promise<boolean> {
  const candidates: Bound[] = (await objectsOf(context.cluster, pattern)).map((object) => ({
    key: objectKey(object),
    object,
  }));
  if (context.writes !== undefined && countsWritesOf(body, pattern)) {
    const present = new Set(candidates.map((candidate) => candidate.key));
    for (const key of context.writes.keysOf(pattern.kind)) {
      if (!present.has(key) && refNameMatches(pattern, key.slice(key.indexOf("/") + 1)) && inNamespace(pattern, key)) {
        candidates.push({ key });
      }
    }
  }
  const key = patternKey(pattern);
  if (candidates.length === 0) return evaluate(body, { ...context, bindings: bindingsWith(context, key, null) });
  for (const candidate of candidates) {
    if (await evaluate(body, { ...context, bindings: bindingsWith(context, key, candidate) })) return true;
  }
  return false;
}

function bindingsWith(context: Evaluation, key: string, bound: Bound | null): Bindings {
  return new Map([...context.bindings, [key, bound]]);
}

function countsWritesOf(condition: Condition, pattern: ObjectRef): boolean {
  if (condition.type === "write-count") return patternKey(condition.object) === patternKey(pattern);
  const children =
    condition.type === "and" || condition.type === "or"
      ? condition.operands
      : condition.type === "not"
        ? [condition.operand]
        : condition.type === "bind"
          ? [condition.body]
          : [];
  return children.some((child) => countsWritesOf(child, pattern));
}

function inNamespace(pattern: ObjectRef, key: string): boolean {
  const namespaced = resolveResourceName(pattern.kind)?.namespaced ?? false;
  return !namespaced || key.startsWith(`${pattern.namespace}/`);
}

/** The objects `ref` names in this evaluation: its bound object when it is a bound pattern. */
async function refObjects(context: Evaluation, ref: ObjectRef): Promise<KObject[]> {
  if (isBindablePattern(ref)) {
    const bound = context.bindings.get(patternKey(ref));
    if (bound !== undefined) return bound?.object === undefined ? [] : [bound.object];
  }
  return objectsOf(context.cluster, ref);
}

/** The objects `ref` names: the one object, or every match of a pattern. */
async function objectsOf(cluster: Cluster, ref: ObjectRef): Promise<KObject[]> {
  if (!isPattern(ref) && ref.name !== undefined) {
    // Every stored kind is a KObject; KindMap's precise types only differ in their optional fields.
    const object = (await cluster.tryGet(ref.kind, ref.namespace, ref.name)) as KObject | undefined;
    return object === undefined ? [] : [object];
  }
  const namespaced = resolveResourceName(ref.kind)?.namespaced ?? false;
  const objects = (await cluster.list(ref.kind, namespaced ? { namespace: ref.namespace } : {})) as KObject[];
  return objects.filter((object) => refNameMatches(ref, object.metadata?.name ?? ""));
}

async function propertyHolds(context: Evaluation, ref: ObjectRef, name: string, value: string): Promise<boolean> {
  const property = propertyOf(ref.kind, name);
  if (property === undefined) throw new Error(`${ref.kind.toLowerCase()} has no property "${name}"`);
  return (await refObjects(context, ref)).some((object) => property.read(object).includes(value));
}

/** The PV names a volume ref stands for: the PV, or the PV a claim is bound to (none while unbound). */
async function volumeNamesOf(context: Evaluation, volume: ObjectRef): Promise<Set<string>> {
  const volumeNames = new Set<string>();
  for (const object of await refObjects(context, volume)) {
    if (volume.kind === "PersistentVolume") volumeNames.add(object.metadata?.name ?? "");
    const bound = volume.kind === "PersistentVolumeClaim" ? (object as { spec?: { volumeName?: string } }) : undefined;
    if (bound?.spec?.volumeName !== undefined) volumeNames.add(bound.spec.volumeName);
  }
  return volumeNames;
}

/** VolumeAttachments of the PV; for a claim, of the PV it is bound to (none while unbound). */
async function attachmentCount(context: Evaluation, volume: ObjectRef): Promise<number> {
  const volumeNames = await volumeNamesOf(context, volume);
  const attachments = await context.cluster.list("VolumeAttachment");
  return attachments.filter((attachment) => volumeNames.has(attachment.spec.source.persistentVolumeName ?? "")).length;
}

/** The unique volume names (`kubernetes.io/csi/<driver>^<handle>`) a node's list would show for the volume. */
async function uniqueNamesOf(context: Evaluation, volume: VolumeRef): Promise<Set<string>> {
  if (volume.kind === "unique-name") return new Set([volume.name]);
  const names = new Set<string>();
  for (const pvName of await volumeNamesOf(context, volume.object)) {
    const pv = (await context.cluster.tryGet("PersistentVolume", "", pvName)) as PersistentVolume | undefined;
    const attachedName = pv === undefined ? undefined : identityOfPersistentVolume(pv)?.attachedName;
    if (attachedName !== undefined) names.add(attachedName);
  }
  return names;
}

function nodeVolumeNames(node: Node, list: NodeVolumeList): string[] {
  if (list === "volumesInUse") return [...(node.status?.volumesInUse ?? [])];
  return (node.status?.volumesAttached ?? []).map((volume) => volume.name);
}

async function nodeVolumesContain(
  context: Evaluation,
  nodeRef: ObjectRef,
  list: NodeVolumeList,
  volume: VolumeRef,
): Promise<boolean> {
  const wanted = await uniqueNamesOf(context, volume);
  if (wanted.size === 0) return false;
  const nodes = (await refObjects(context, nodeRef)) as Node[];
  return nodes.some((node) => nodeVolumeNames(node, list).some((name) => wanted.has(name)));
}

async function nodeVolumesCount(
  context: Evaluation,
  nodeRef: ObjectRef,
  list: NodeVolumeList,
  count: CountCheck,
): Promise<boolean> {
  const nodes = (await refObjects(context, nodeRef)) as Node[];
  if (nodes.length === 0) return countHolds(count, 0);
  return nodes.some((node) => countHolds(count, nodeVolumeNames(node, list).length));
}

function writeCountHolds(
  context: Evaluation,
  ref: ObjectRef,
  status: boolean,
  windowMs: number | undefined,
  count: CountCheck,
): boolean {
  const { writes } = context;
  if (writes === undefined) throw new Error("writes are only counted while a scenario runs");
  const sinceMs = windowMs === undefined ? undefined : context.cluster.clock.now() - windowMs;
  const query = { kind: ref.kind, status, ...(sinceMs === undefined ? {} : { sinceMs }) };
  if (ref.name === undefined) return countHolds(count, writes.count(query));
  if (isBindablePattern(ref)) {
    const bound = context.bindings.get(patternKey(ref));
    return countHolds(count, bound == null ? 0 : writes.count({ ...query, key: bound.key }));
  }
  const namespaced = resolveResourceName(ref.kind)?.namespaced ?? false;
  const key = namespaced ? `${ref.namespace}/${ref.name}` : ref.name;
  return countHolds(count, writes.count({ ...query, key }));
}
