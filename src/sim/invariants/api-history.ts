/**
 * Feeds the API side of an ObjectHistory: every change of the objects that matter to volumes
 * (Nodes, Pods, PVs, claims, VolumeAttachments) as a one-line summary of the fields that matter,
 * recorded only when that summary changes, and every Event under the object it is about. Reads the
 * cluster's shared informers, so it costs no API calls.
 */
import type { ResourceEventHandler } from "../../api/informer/shared-informer.ts";
import type {
  Event,
  KindMap,
  KindName,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  VolumeAttachment,
} from "../../api/objects.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import { apiObjectName, hasOutOfServiceTaint, isNodeReady } from "./cluster-view.ts";
import type { ObjectHistory } from "./object-history.ts";

type Summarize<K extends KindName> = (object: KindMap[K]) => string;

function summarizeNode(node: Node): string {
  const attached = (node.status?.volumesAttached ?? []).map((volume) => volume.name);
  const inUse = node.status?.volumesInUse ?? [];
  const taints = (node.spec?.taints ?? []).map((taint) => taint.key);
  return [
    `Ready=${isNodeReady(node)}`,
    hasOutOfServiceTaint(node) ? "out-of-service" : "",
    taints.length > 0 ? `taints=[${taints.join(", ")}]` : "",
    `volumesAttached=[${attached.join(", ")}]`,
    `volumesInUse=[${inUse.join(", ")}]`,
  ]
    .filter(Boolean)
    .join(" ");
}

function summarizePod(pod: Pod): string {
  return [
    `phase=${pod.status?.phase ?? "-"}`,
    `node=${pod.spec?.nodeName ?? "-"}`,
    `uid=${pod.metadata?.uid ?? "-"}`,
    pod.metadata?.deletionTimestamp ? "terminating" : "",
  ]
    .filter(Boolean)
    .join(" ");
}

function summarizePersistentVolume(pv: PersistentVolume): string {
  const claim = pv.spec?.claimRef;
  return [
    `phase=${pv.status?.phase ?? "-"}`,
    `accessModes=[${(pv.spec?.accessModes ?? []).join(", ")}]`,
    `claim=${claim ? `${claim.namespace}/${claim.name}` : "-"}`,
    `reclaim=${pv.spec?.persistentVolumeReclaimPolicy ?? "-"}`,
  ].join(" ");
}

function summarizeClaim(claim: PersistentVolumeClaim): string {
  return `phase=${claim.status?.phase ?? "-"} volume=${claim.spec?.volumeName || "-"} uid=${claim.metadata?.uid ?? "-"}`;
}

function summarizeAttachment(attachment: VolumeAttachment): string {
  return [
    `node=${attachment.spec?.nodeName ?? "-"}`,
    `pv=${attachment.spec?.source?.persistentVolumeName ?? "-"}`,
    `attached=${attachment.status?.attached === true}`,
    attachment.metadata?.deletionTimestamp ? "deleting" : "",
    attachment.status?.attachError?.message ? `attachError=${attachment.status.attachError.message}` : "",
    attachment.status?.detachError?.message ? `detachError=${attachment.status.detachError.message}` : "",
  ]
    .filter(Boolean)
    .join(" ");
}

export class ApiHistory {
  private readonly lastSummary = new Map<string, string>();
  private readonly removals: Array<() => void> = [];

  constructor(
    private readonly cluster: Cluster,
    private readonly history: ObjectHistory,
  ) {
    this.follow("Node", summarizeNode);
    this.follow("Pod", summarizePod);
    this.follow("PersistentVolume", summarizePersistentVolume);
    this.follow("PersistentVolumeClaim", summarizeClaim);
    this.follow("VolumeAttachment", summarizeAttachment);
    this.followEvents();
  }

  stop(): void {
    for (const remove of this.removals.splice(0)) remove();
  }

  private follow<K extends KindName>(kind: K, summarize: Summarize<K>): void {
    const note = (object: KindMap[K], verb: string) => {
      const name = apiObjectName(kind, object);
      const summary = summarize(object);
      if (verb === "updated" && this.lastSummary.get(name) === summary) return;
      this.lastSummary.set(name, summary);
      this.history.record(name, this.cluster.clock.now(), `${verb}: ${summary}`);
    };
    const handler: ResourceEventHandler<KindMap[K]> = {
      onAdd: (object) => note(object, "created"),
      onUpdate: (_old, object) => note(object, "updated"),
      onDelete: (object) => {
        const name = apiObjectName(kind, object);
        this.lastSummary.delete(name);
        this.history.record(name, this.cluster.clock.now(), "deleted");
      },
    };
    const registration = this.cluster.informers.informerFor(kind).addEventHandler(handler);
    this.removals.push(() => registration.remove());
  }

  private followEvents(): void {
    const note = (event: Event) => {
      const involved = event.involvedObject;
      if (!involved.kind || !involved.name) return;
      const name = apiObjectName(involved.kind, { metadata: { namespace: involved.namespace, name: involved.name } });
      const count = (event.count ?? 1) > 1 ? ` (x${event.count})` : "";
      this.history.record(
        name,
        this.cluster.clock.now(),
        `event ${event.type ?? "Normal"} ${event.reason ?? ""}${count}: ${event.message ?? ""}`,
      );
    };
    const registration = this.cluster.informers.informerFor("Event").addEventHandler({
      onAdd: (event, isInInitialList) => {
        if (!isInInitialList) note(event);
      },
      onUpdate: (old, event) => {
        if (old !== event && old.count !== event.count) note(event);
      },
    });
    this.removals.push(() => registration.remove());
  }
}
