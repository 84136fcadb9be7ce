/**
 * The properties a condition can check, per kind: the values a user may write (checked when the
 * scenario is read, so `phase is Runing` is an error rather than a check that never holds) and how
 * each is read from the object. A property is a list of values because some are (a PV's access
 * modes): the check holds when the list contains the value.
 */
import type {
  KindName,
  KObject,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  VolumeAttachment,
} from "../../api/objects.ts";

interface PropertyDefinition {
  /** What a user may write; undefined when any word is allowed (a node name). */
  readonly values?: readonly string[];
  readonly read: (object: KObject) => readonly string[];
}

type Table<T> = Readonly<Record<string, { values?: readonly string[]; read: (object: T) => readonly string[] }>>;

const present = (value: string | undefined): string[] => (value === undefined ? [] : [value]);
const trueFalse = ["true", "false"] as const;

/** The condition of type `type` in a `status.conditions` list, or "Unknown" when absent. */
function conditionStatus(conditions: ReadonlyArray<{ type: string; status: string }> | undefined, type: string) {
  return conditions?.find((condition) => condition.type === type)?.status ?? "Unknown";
}

/** What `kubectl get pod` shows in its STATUS column. */
function podStatusColumn(pod: Pod): string {
  if (pod.metadata?.deletionTimestamp !== undefined) return "Terminating";
  const statuses = pod.status?.containerStatuses ?? [];
  const waiting = statuses.find((status) => status.state?.waiting?.reason)?.state?.waiting?.reason;
  if (waiting !== undefined) return waiting;
  const terminated = statuses.find((status) => status.state?.terminated?.reason)?.state?.terminated?.reason;
  if (terminated !== undefined) return terminated;
  if (pod.status?.phase === "Pending" && pod.spec?.nodeName !== undefined && statuses.length === 0) {
    return "ContainerCreating";
  }
  return pod.status?.phase ?? "Pending";
}

const podProperties: Table<Pod> = {
  phase: {
    values: ["Pending", "Running", "Succeeded", "Failed", "Unknown"],
    read: (pod) => present(pod.status?.phase),
  },
  node: { read: (pod) => present(pod.spec?.nodeName) },
  ready: { values: ["True", "False"], read: (pod) => [conditionStatus(pod.status?.conditions, "Ready")] },
  status: { read: (pod) => [podStatusColumn(pod)] },
};

const claimProperties: Table<PersistentVolumeClaim> = {
  phase: { values: ["Pending", "Bound", "Lost"], read: (claim) => present(claim.status?.phase) },
  volume: { read: (claim) => present(claim.spec?.volumeName) },
  capacity: { read: (claim) => present(claim.status?.capacity?.storage) },
  resizepending: {
    values: ["True", "False", "Unknown"],
    read: (claim) => [conditionStatus(claim.status?.conditions, "FileSystemResizePending")],
  },
};

const volumeProperties: Table<PersistentVolume> = {
  phase: {
    values: ["Pending", "Available", "Bound", "Released", "Failed"],
    read: (volume) => present(volume.status?.phase),
  },
  claim: {
    read: (volume) => {
      const ref = volume.spec?.claimRef;
      return ref?.name === undefined ? [] : [`${ref.namespace ?? ""}/${ref.name}`];
    },
  },
  accessmode: {
    values: ["ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"],
    read: (volume) => volume.spec?.accessModes ?? [],
  },
};

const nodeProperties: Table<Node> = {
  ready: { values: ["True", "False", "Unknown"], read: (node) => [conditionStatus(node.status?.conditions, "Ready")] },
  schedulable: { values: trueFalse, read: (node) => [String(node.spec?.unschedulable !== true)] },
  /** kvol's StorageFenced condition (docs/fencing.md); Unknown on a node never considered for fencing. */
  fenced: {
    values: ["True", "False", "Unknown"],
    read: (node) => [conditionStatus(node.status?.conditions, "StorageFenced")],
  },
  /** The keys of the node's taints (`node.kubernetes.io/out-of-service`). */
  taint: { read: (node) => (node.spec?.taints ?? []).map((taint) => taint.key) },
};

const attachmentProperties: Table<VolumeAttachment> = {
  node: { read: (attachment) => [attachment.spec.nodeName] },
  attached: { values: trueFalse, read: (attachment) => [String(attachment.status?.attached === true)] },
};

// Each table reads objects of its own kind; the evaluator only hands it objects of that kind.
const tables: Partial<Record<KindName, Table<KObject>>> = {
  Pod: podProperties as unknown as Table<KObject>,
  PersistentVolumeClaim: claimProperties as unknown as Table<KObject>,
  PersistentVolume: volumeProperties as unknown as Table<KObject>,
  Node: nodeProperties as unknown as Table<KObject>,
  VolumeAttachment: attachmentProperties as unknown as Table<KObject>,
};

/** The property of `kind` named `name` (case-insensitive), or undefined. */
export function propertyOf(kind: KindName, name: string): PropertyDefinition | undefined {
  return tables[kind]?.[name.toLowerCase()];
}

/** The property names of `kind`, for error messages; empty when the kind has none. */
export function propertyNames(kind: KindName): string[] {
  return Object.keys(tables[kind] ?? {});
}
