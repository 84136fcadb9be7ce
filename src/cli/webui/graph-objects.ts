/**
 * The cluster as the web UI's graph shows it: pods, claims, volumes, attachments and nodes, each
 * with its status as kubectl prints it, a health colour, and edges pod → claim → pv → attachment →
 * node. In-tree attachable volumes (rbd, iscsi) have no VolumeAttachment: their attachments are read
 * from the nodes' status.volumesAttached. Pure, so the browser bundle computes the graph of a live
 * cluster from its watches and the simulator records the same for `kvol sim run --html`.
 */
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod, VolumeAttachment } from "../../api/objects.ts";
import { podStatusText } from "../../api/printers/pod-printer.ts";

export type GraphKind = "Pod" | "PersistentVolumeClaim" | "PersistentVolume" | "Attachment" | "Node";
export type Health = "ok" | "waiting" | "bad";

export interface GraphObject {
  /** `pod/ns/name`, `pvc/ns/name`, `pv/name`, `attachment/name`, `node/name`. */
  key: string;
  kind: GraphKind;
  namespace: string;
  name: string;
  uid: string;
  status: string;
  health: Health;
  /** Other names components give it: a volume's CSI handle or in-tree image, as unique volume names end. */
  aliases?: string[];
  /** Keys of the objects this one leads to (pod → claims and node, claim → pv, pv → attachments, attachment → node). */
  edges: string[];
}

export interface ClusterObjects {
  pods: readonly Pod[];
  claims: readonly PersistentVolumeClaim[];
  volumes: readonly PersistentVolume[];
  attachments: readonly VolumeAttachment[];
  nodes: readonly Node[];
}

export function objectKey(kind: GraphKind, namespace: string, name: string): string {
  const word = {
    Pod: "pod",
    PersistentVolumeClaim: "pvc",
    PersistentVolume: "pv",
    Attachment: "attachment",
    Node: "node",
  }[kind];
  return namespace === "" ? `${word}/${name}` : `${word}/${namespace}/${name}`;
}

function podHealth(pod: Pod, status: string): Health {
  if (pod.metadata?.deletionTimestamp !== undefined) return "waiting";
  if (status === "Running" || status === "Completed") return "ok";
  if (status === "Pending" || status === "ContainerCreating" || status === "PodInitializing") return "waiting";
  return "bad";
}

function podObject(pod: Pod): GraphObject {
  const namespace = pod.metadata?.namespace ?? "";
  const name = pod.metadata?.name ?? "";
  const status = podStatusText(pod);
  const claims = (pod.spec?.volumes ?? []).flatMap((volume) =>
    volume.persistentVolumeClaim === undefined
      ? []
      : [objectKey("PersistentVolumeClaim", namespace, volume.persistentVolumeClaim.claimName)],
  );
  const node = pod.spec?.nodeName;
  return {
    key: objectKey("Pod", namespace, name),
    kind: "Pod",
    namespace,
    name,
    uid: pod.metadata?.uid ?? "",
    status,
    health: podHealth(pod, status),
    edges: node === undefined || node === "" ? claims : [...claims, objectKey("Node", "", node)],
  };
}

function claimObject(claim: PersistentVolumeClaim): GraphObject {
  const namespace = claim.metadata?.namespace ?? "";
  const name = claim.metadata?.name ?? "";
  const status = claim.metadata?.deletionTimestamp !== undefined ? "Terminating" : (claim.status?.phase ?? "Pending");
  const volume = claim.spec?.volumeName;
  return {
    key: objectKey("PersistentVolumeClaim", namespace, name),
    kind: "PersistentVolumeClaim",
    namespace,
    name,
    uid: claim.metadata?.uid ?? "",
    status,
    health: status === "Bound" ? "ok" : status === "Lost" ? "bad" : "waiting",
    edges: volume === undefined || volume === "" ? [] : [objectKey("PersistentVolume", "", volume)],
  };
}

function volumeObject(volume: PersistentVolume, attachmentKeys: readonly string[]): GraphObject {
  const name = volume.metadata?.name ?? "";
  const status = volume.metadata?.deletionTimestamp !== undefined ? "Terminating" : (volume.status?.phase ?? "Pending");
  return {
    key: objectKey("PersistentVolume", "", name),
    kind: "PersistentVolume",
    namespace: "",
    name,
    uid: volume.metadata?.uid ?? "",
    status,
    health: status === "Bound" || status === "Available" ? "ok" : status === "Failed" ? "bad" : "waiting",
    aliases: volumeAliases(volume),
    edges: [...attachmentKeys],
  };
}

/** The names a volume's unique name ends with: the CSI volume handle, the rbd `pool-image-image`. */
function volumeAliases(volume: PersistentVolume): string[] {
  const spec = volume.spec;
  const aliases: string[] = [];
  if (spec?.csi?.volumeHandle !== undefined) aliases.push(spec.csi.volumeHandle);
  if (spec?.rbd !== undefined) aliases.push(`${spec.rbd.pool ?? "rbd"}-image-${spec.rbd.image}`);
  return aliases;
}

interface Attachment {
  object: GraphObject;
  volumeName: string;
}

function attachmentObjects(objects: ClusterObjects): Attachment[] {
  const attachments: Attachment[] = objects.attachments.map((attachment) => {
    const name = attachment.metadata?.name ?? "";
    const node = attachment.spec?.nodeName ?? "";
    const error = attachment.status?.attachError?.message ?? attachment.status?.detachError?.message;
    const attached = attachment.status?.attached === true;
    return {
      volumeName: attachment.spec?.source?.persistentVolumeName ?? "",
      object: {
        key: objectKey("Attachment", "", name),
        kind: "Attachment",
        namespace: "",
        name,
        uid: attachment.metadata?.uid ?? "",
        status: error !== undefined ? `Error: ${error}` : attached ? `Attached to ${node}` : `Attaching to ${node}`,
        health: error !== undefined ? "bad" : attached ? "ok" : "waiting",
        edges: node === "" ? [] : [objectKey("Node", "", node)],
      },
    };
  });
  // In-tree attachable volumes are attached by the attach/detach controller without a VolumeAttachment.
  for (const node of objects.nodes) {
    const nodeName = node.metadata?.name ?? "";
    for (const attached of node.status?.volumesAttached ?? []) {
      if (attached.name.startsWith("kubernetes.io/csi/")) continue;
      const volume = objects.volumes.find((candidate) =>
        [candidate.metadata?.name ?? "", ...volumeAliases(candidate)].some(
          (name) => name !== "" && attached.name.endsWith(name),
        ),
      );
      const name = `${attached.name.split("/").at(-1) ?? attached.name}@${nodeName}`;
      attachments.push({
        volumeName: volume?.metadata?.name ?? "",
        object: {
          key: objectKey("Attachment", "", name),
          kind: "Attachment",
          namespace: "",
          name,
          uid: "",
          status: `Attached to ${nodeName} (in-tree)`,
          health: "ok",
          edges: [objectKey("Node", "", nodeName)],
        },
      });
    }
  }
  return attachments;
}

function nodeObject(node: Node): GraphObject {
  const name = node.metadata?.name ?? "";
  const ready = node.status?.conditions?.find((condition) => condition.type === "Ready")?.status;
  const tainted = (node.spec?.taints ?? []).some((taint) => taint.key === "node.kubernetes.io/out-of-service");
  const status = `${ready === "True" ? "Ready" : "NotReady"}${tainted ? ", out-of-service" : ""}`;
  return {
    key: objectKey("Node", "", name),
    kind: "Node",
    namespace: "",
    name,
    uid: node.metadata?.uid ?? "",
    status,
    health: ready === "True" ? "ok" : "bad",
    edges: [],
  };
}

function byKey(a: GraphObject, b: GraphObject): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** The graph's objects, sorted by key within each kind (pods, claims, volumes, attachments, nodes). */
export function graphObjects(objects: ClusterObjects): GraphObject[] {
  const attachments = attachmentObjects(objects);
  const volumes = objects.volumes.map((volume) =>
    volumeObject(
      volume,
      attachments
        .filter((attachment) => attachment.volumeName === volume.metadata?.name)
        .map((attachment) => attachment.object.key),
    ),
  );
  return [
    ...objects.pods.map(podObject).sort(byKey),
    ...objects.claims.map(claimObject).sort(byKey),
    ...volumes.sort(byKey),
    ...attachments.map((attachment) => attachment.object).sort(byKey),
    ...objects.nodes.map(nodeObject).sort(byKey),
  ];
}
