/**
 * kvol's node-fencing controller (off unless `--fence-after` or a StorageClass's
 * `fencing.kvol.io/fence-after` asks for it). Kubernetes will not move an RWO volume off a node that
 * stopped reporting, because it cannot know the node stopped writing; a human must add
 * `node.kubernetes.io/out-of-service`. This controller makes that safe to do automatically:
 *
 * 1. A node is silent when neither its Lease nor its Ready heartbeat changed for the grace, timed on
 *    the controller's own clock from when it noticed the last change (as the node lifecycle
 *    controller does), so a restarted controller waits a whole grace again.
 * 2. Every volume the node holds (its pods' claims, its VolumeAttachments) must be covered by a
 *    fencer, and every fencer must declare it can fence and confirm the fence; otherwise nothing is
 *    done and the Node says why (condition StorageFenced=False, reason FencingRefused, and an event).
 * 3. Only after the storage confirmed that the node's I/O fails: the Node is annotated and tainted
 *    `node.kubernetes.io/out-of-service:NoExecute`, its condition StorageFenced=True and a
 *    `NodeFenced` event are recorded, and its pods are deleted with grace 0 — what pod GC does for an
 *    out-of-service node, done without waiting the 40 s the node lifecycle controller takes to mark
 *    the node not Ready. The attach/detach controller then detaches at once (out-of-service).
 * 4. When the node reports again (Ready, heartbeat newer than the fence), its kubelet has torn
 *    down every stale mount (`status.volumesInUse` empty) and the storage confirms the node holds
 *    nothing any more (no mapping, attachment or device: a restarted kubelet can forget a stale
 *    mount its volumesInUse no longer names), the storage is unfenced first, then the taint,
 *    annotations and condition are lifted.
 *
 * The state lives on the Node (annotations), so a restarted controller carries on where it was.
 */
import type { NodeCondition } from "kubernetes-types/core/v1.js";
import type { EventRecorder } from "../../api/events/recorder.ts";
import { ensureIndex, podsByNode, volumeAttachmentsByNode } from "../../api/informer/indexes.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import { nodeLeaseNamespace } from "../../api/namespaces.ts";
import type {
  Lease,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
  VolumeAttachment,
} from "../../api/objects.ts";
import { sameTaint, type Taint, taintNodeOutOfService } from "../../api/scheduling/taints.ts";
import { formatRfc3339, parseRfc3339, type Timer } from "../../runtime/clock.ts";
import { formatGoDuration } from "../../runtime/duration.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";
import {
  apiSlowThresholdMs,
  conditionStorageFenced,
  fenceAfterAnnotation,
  fencedAtAnnotation,
  fencedStorageAnnotation,
  fencingPassPeriodMs,
  nodeFencingControllerName,
  reasonFencingRefused,
  reasonNodeFenced,
  reasonNodeUnfenced,
  reasonUnfenceWaiting,
} from "./constants.ts";
import { parseFenceAfter } from "./fence-after.ts";
import type { StorageFencer } from "./storage-fencer.ts";

export interface NodeFencingOptions {
  /** `--fence-after`: the grace for every node holding volumes; absent, only StorageClasses that ask are fenced. */
  fenceAfterMs?: number;
  /** The storage systems that can fence, in the order they are asked. */
  fencers: readonly StorageFencer[];
}

export const outOfServiceTaint: Readonly<Taint> = Object.freeze({ key: taintNodeOutOfService, effect: "NoExecute" });

interface Heard {
  /** The controller's time when it noticed the last heartbeat. */
  atMs: number;
  leaseRenew: string | undefined;
  readyHeartbeat: string | undefined;
}

/** `doubtSilence`'s answer when the API server has a newer Lease than the cache: not silent at all. */
const heardAfterAll = "heard";

/** What a silent node's volumes allow: fence with these fencers, or a reason not to. */
type FencePlan = { kind: "fence"; fencers: StorageFencer[] } | { kind: "refuse"; why: string };

export class NodeFencingController implements Controller {
  readonly name = nodeFencingControllerName;
  private readonly logger: Logger;
  private readonly recorder: EventRecorder;
  private readonly nodes: SharedInformer<Node>;
  private readonly leases: SharedInformer<Lease>;
  private readonly pods: SharedInformer<Pod>;
  private readonly claims: SharedInformer<PersistentVolumeClaim>;
  private readonly volumes: SharedInformer<PersistentVolume>;
  private readonly classes: SharedInformer<StorageClass>;
  private readonly attachments: SharedInformer<VolumeAttachment>;
  private readonly heard = new Map<string, Heard>();
  /** The last refusal recorded per node, so the event is not repeated every pass. */
  private readonly refusals = new Map<string, string>();
  private timer: Timer | undefined;
  private pass: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly context: ControllerContext,
    private readonly options: NodeFencingOptions,
  ) {
    this.logger = context.logger.with({ component: this.name });
    this.recorder = recorderFor(context, this.name);
    this.nodes = context.informers.informerFor("Node");
    this.leases = context.informers.informerFor("Lease");
    this.pods = context.informers.informerFor("Pod");
    this.claims = context.informers.informerFor("PersistentVolumeClaim");
    this.volumes = context.informers.informerFor("PersistentVolume");
    this.classes = context.informers.informerFor("StorageClass");
    this.attachments = context.informers.informerFor("VolumeAttachment");
    ensureIndex(this.pods, podsByNode);
    ensureIndex(this.attachments, volumeAttachmentsByNode);
  }

  start(): void {
    this.starting ??= this.startWhenSynced();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.starting;
    await this.pass;
    await this.recorder.flush();
  }

  debugState(): object {
    return {
      fenceAfter: this.options.fenceAfterMs === undefined ? null : formatGoDuration(this.options.fenceAfterMs),
      fencers: this.options.fencers.map((fencer) => fencer.name),
      refusals: Object.fromEntries(this.refusals),
    };
  }

  private async startWhenSynced(): Promise<void> {
    const informers = [this.nodes, this.leases, this.pods, this.claims, this.volumes, this.classes, this.attachments];
    const synced = await Promise.all(informers.map((informer) => informer.waitForSync()));
    if (!synced.every(Boolean) || this.stopped) return;
    // Off by default: no timer at all (so a cluster without fencing runs exactly as before) until
    // `--fence-after` is set, a StorageClass asks for fencing, or a node is found fenced.
    this.armIfEnabled();
    this.classes.addEventHandler({ onAdd: () => this.armIfEnabled(), onUpdate: () => this.armIfEnabled() });
    const armIfFenced = (node: Node) => {
      if (node.metadata?.annotations?.[fencedAtAnnotation] !== undefined) this.arm();
    };
    this.nodes.addEventHandler({ onAdd: armIfFenced, onUpdate: (_old, node) => armIfFenced(node) });
  }

  private armIfEnabled(): void {
    if (this.timer === undefined && this.enabled()) this.arm();
  }

  private arm(): void {
    if (this.timer !== undefined || this.stopped) return;
    this.timer = this.context.clock.every(fencingPassPeriodMs, () => {
      this.pass = this.runPass();
      return this.pass;
    });
  }

  private enabled(): boolean {
    if (this.options.fenceAfterMs !== undefined) return true;
    if (this.classes.lister.list().some((sc) => sc.metadata?.annotations?.[fenceAfterAnnotation] !== undefined)) {
      return true;
    }
    return this.nodes.lister.list().some((node) => node.metadata?.annotations?.[fencedAtAnnotation] !== undefined);
  }

  private async runPass(): Promise<void> {
    const nodes = this.nodes.lister.list();
    const names = new Set(nodes.map((node) => node.metadata?.name ?? ""));
    for (const name of [...this.heard.keys()]) if (!names.has(name)) this.heard.delete(name);
    const shortestGraceMs = this.shortestGraceMs();
    for (const node of nodes) {
      if (this.stopped) return;
      try {
        if (node.metadata?.annotations?.[fencedAtAnnotation] === undefined)
          await this.considerFencing(node, shortestGraceMs);
        else await this.considerUnfencing(node);
      } catch (error) {
        // The next pass tries again from what the API then says.
        this.logger.error("fencing pass failed for a node", { node: node.metadata?.name, error });
      }
    }
  }

  /** Notes a new heartbeat (Lease renewal or Ready heartbeat) and returns how long the node has been silent. */
  private silentForMs(node: Node): number {
    const name = node.metadata?.name ?? "";
    const nowMs = this.context.clock.now();
    const leaseRenew = this.leases.lister.get(nodeLeaseNamespace, name)?.spec?.renewTime ?? undefined;
    const readyHeartbeat = readyCondition(node)?.lastHeartbeatTime ?? undefined;
    const last = this.heard.get(name);
    if (last === undefined || last.leaseRenew !== leaseRenew || last.readyHeartbeat !== readyHeartbeat) {
      this.heard.set(name, { atMs: nowMs, leaseRenew, readyHeartbeat });
      return 0;
    }
    return nowMs - last.atMs;
  }

  /**
   * `shortestGraceMs`: no grace that could apply to any node is shorter, so a node silent for less
   * is passed over before its volumes are gathered — the usual case, every pass, for every node.
   */
  private async considerFencing(node: Node, shortestGraceMs: number): Promise<void> {
    const name = node.metadata?.name ?? "";
    const silentMs = this.silentForMs(node);
    if (silentMs < shortestGraceMs && !(silentMs === 0 && this.refusals.has(name))) return;
    const volumes = this.volumesOf(name);
    if (volumes.length === 0) return;
    const graceMs = this.graceFor(volumes);
    if (graceMs === undefined || silentMs < graceMs) {
      if (silentMs === 0) this.refusals.delete(name);
      return;
    }
    const doubt = await this.doubtSilence(name);
    if (doubt === heardAfterAll) return;
    if (doubt !== undefined) return this.refuse(node, doubt);
    const plan = await this.planFor(volumes);
    if (plan.kind === "refuse") return this.refuse(node, plan.why);
    const fenced: string[] = [];
    for (const fencer of plan.fencers) {
      const result = await fencer.fence(name);
      if (!result.confirmed) {
        // Whatever was fenced stays fenced until the node returns: lifting it now could free a writer.
        return this.refuse(node, `${fencer.name} did not confirm the fence: ${result.detail}`);
      }
      fenced.push(fencer.name);
    }
    const silent = formatGoDuration(Math.floor(silentMs / 1_000) * 1_000);
    const message = `Node ${name} has not reported for ${silent}; its access to ${fenced.join(", ")} is fenced and it is tainted ${taintNodeOutOfService}`;
    await this.markFenced(node, fenced, message);
    await this.deletePodsOf(name);
  }

  /**
   * Why the silence may not be the node's, or undefined when it is: the node's Lease read from the
   * API server now (not the cache) was renewed since it was last noticed — the cache is behind — or
   * the API server itself took `apiSlowThresholdMs` or more to answer, so a kubelet that is merely
   * slow to report (its requests as slow as ours) is never taken for a dead one.
   */
  private async doubtSilence(nodeName: string): Promise<string | undefined> {
    const startMs = this.context.clock.now();
    let renewTime: string | undefined;
    try {
      renewTime = (await this.context.client.leases.get(nodeLeaseNamespace, nodeName)).spec?.renewTime ?? undefined;
    } catch (error) {
      return `its Lease could not be read from the API server: ${errorMessage(error)}`;
    }
    const answeredInMs = this.context.clock.now() - startMs;
    const heard = this.heard.get(nodeName);
    if (heard !== undefined && renewTime !== undefined && renewTime !== heard.leaseRenew) {
      this.heard.set(nodeName, { ...heard, atMs: this.context.clock.now(), leaseRenew: renewTime });
      return heardAfterAll;
    }
    if (answeredInMs >= apiSlowThresholdMs) {
      return `the API server took ${formatGoDuration(answeredInMs)} to answer, so the node may only be slow to report`;
    }
    return undefined;
  }

  /** The PVs the node holds: its pods' claims and its VolumeAttachments. */
  private volumesOf(nodeName: string): PersistentVolume[] {
    const byName = new Map<string, PersistentVolume>();
    const add = (pvName: string | undefined) => {
      if (!pvName || byName.has(pvName)) return;
      const pv = this.volumes.lister.get("", pvName);
      if (pv !== undefined) byName.set(pvName, pv);
    };
    for (const pod of this.pods.indexer.byIndex(podsByNode.name, nodeName)) {
      const namespace = pod.metadata?.namespace ?? "";
      for (const volume of pod.spec?.volumes ?? []) {
        const claimName =
          volume.persistentVolumeClaim?.claimName ??
          (volume.ephemeral ? `${pod.metadata?.name ?? ""}-${volume.name}` : undefined);
        if (claimName !== undefined) add(this.claims.lister.get(namespace, claimName)?.spec?.volumeName);
      }
    }
    for (const attachment of this.attachments.indexer.byIndex(volumeAttachmentsByNode.name, nodeName)) {
      add(attachment.spec?.source?.persistentVolumeName ?? undefined);
    }
    return [...byName.values()].sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
  }

  /** The shortest grace any node could get: `--fence-after` and every StorageClass's valid annotation. */
  private shortestGraceMs(): number {
    let graceMs = this.options.fenceAfterMs ?? Number.POSITIVE_INFINITY;
    for (const storageClass of this.classes.lister.list()) {
      const text = storageClass.metadata?.annotations?.[fenceAfterAnnotation];
      if (text === undefined) continue;
      try {
        graceMs = Math.min(graceMs, parseFenceAfter(text, fenceAfterAnnotation));
      } catch (error) {
        // graceFor warns about it when a silent node's volume is of this class.
        this.logger.debug("skipping a StorageClass's invalid fencing grace", {
          storageClass: storageClass.metadata?.name,
          error,
        });
      }
    }
    return graceMs;
  }

  /** The shortest grace that applies: `--fence-after`, or the StorageClass annotations of the volumes. */
  private graceFor(volumes: readonly PersistentVolume[]): number | undefined {
    let graceMs = this.options.fenceAfterMs;
    for (const pv of volumes) {
      const className = pv.spec?.storageClassName;
      const text = className
        ? this.classes.lister.get("", className)?.metadata?.annotations?.[fenceAfterAnnotation]
        : undefined;
      if (text === undefined) continue;
      try {
        const classMs = parseFenceAfter(text, `StorageClass ${className} annotation ${fenceAfterAnnotation}`);
        graceMs = graceMs === undefined ? classMs : Math.min(graceMs, classMs);
      } catch (error) {
        this.logger.warn("ignoring a StorageClass's fencing grace", { storageClass: className, error });
      }
    }
    return graceMs;
  }

  /** Which fencers cover the volumes, and whether each can fence now. */
  private async planFor(volumes: readonly PersistentVolume[]): Promise<FencePlan> {
    const fencers: StorageFencer[] = [];
    for (const pv of volumes) {
      const fencer = this.options.fencers.find((candidate) => candidate.covers(pv));
      if (fencer === undefined) {
        return {
          kind: "refuse",
          why: `no fencer covers PersistentVolume ${pv.metadata?.name ?? ""} (${storageKind(pv)})`,
        };
      }
      if (!fencers.includes(fencer)) fencers.push(fencer);
    }
    for (const fencer of fencers) {
      const why = await fencer.unavailable();
      if (why !== undefined) return { kind: "refuse", why: `${fencer.name} cannot fence: ${why}` };
    }
    return { kind: "fence", fencers };
  }

  private async refuse(node: Node, why: string): Promise<void> {
    const name = node.metadata?.name ?? "";
    const message = `Node ${name} has stopped reporting but was not fenced: ${why}`;
    if (this.refusals.get(name) === message) return;
    this.refusals.set(name, message);
    this.logger.warn("not fencing a silent node", { node: name, why });
    this.recorder.event(node, "Warning", reasonFencingRefused, message);
    await this.setCondition(name, "False", reasonFencingRefused, message);
  }

  private async markFenced(node: Node, fenced: readonly string[], message: string): Promise<void> {
    const name = node.metadata?.name ?? "";
    const nowMs = this.context.clock.now();
    await this.context.client.nodes.mutate("", name, (draft) => {
      draft.metadata = {
        ...draft.metadata,
        annotations: {
          ...draft.metadata?.annotations,
          [fencedAtAnnotation]: formatRfc3339(nowMs),
          [fencedStorageAnnotation]: fenced.join(","),
        },
      };
      const taints = draft.spec?.taints ?? [];
      if (!taints.some((taint) => sameTaint(taint, outOfServiceTaint))) {
        draft.spec = { ...draft.spec, taints: [...taints, { ...outOfServiceTaint, timeAdded: formatRfc3339(nowMs) }] };
      }
    });
    this.refusals.delete(name);
    this.logger.warn("fenced a silent node", { node: name, storage: fenced.join(",") });
    this.recorder.event(node, "Warning", reasonNodeFenced, message);
    await this.setCondition(name, "True", reasonNodeFenced, message);
  }

  /** Deletes the fenced node's pods at once: their writes already fail, and no kubelet will confirm. */
  private async deletePodsOf(nodeName: string): Promise<void> {
    for (const pod of this.pods.indexer.byIndex(podsByNode.name, nodeName)) {
      const namespace = pod.metadata?.namespace ?? "";
      const podName = pod.metadata?.name ?? "";
      try {
        await this.context.client.pods.delete(namespace, podName, {
          gracePeriodSeconds: 0,
          ...(pod.metadata?.uid ? { preconditions: { uid: pod.metadata.uid } } : {}),
        });
      } catch (error) {
        this.logger.info("could not delete a pod of a fenced node", {
          pod: `${namespace}/${podName}`,
          error: errorMessage(error),
        });
      }
    }
  }

  private async considerUnfencing(node: Node): Promise<void> {
    const name = node.metadata?.name ?? "";
    this.silentForMs(node);
    const fencedAtText = node.metadata?.annotations?.[fencedAtAnnotation] ?? "";
    const fencedAtMs = parseRfc3339(fencedAtText);
    const ready = readyCondition(node);
    const back =
      ready?.status === "True" &&
      ready.lastHeartbeatTime !== undefined &&
      parseRfc3339(ready.lastHeartbeatTime) > fencedAtMs;
    if (!back) {
      // A restarted controller, or someone who removed the taint, must not leave a fenced node schedulable.
      await this.ensureTainted(node);
      return;
    }
    const inUse = node.status?.volumesInUse ?? [];
    if (inUse.length > 0) {
      const message = `Node ${name} is back; it stays fenced until its kubelet has torn down ${inUse.length} stale volume(s): ${inUse.join(", ")}`;
      if (this.refusals.get(name) !== message) {
        this.refusals.set(name, message);
        await this.setCondition(name, "True", reasonUnfenceWaiting, message);
      }
      return;
    }
    const storage = (node.metadata?.annotations?.[fencedStorageAnnotation] ?? "").split(",").filter(Boolean);
    const held: string[] = [];
    for (const fencerName of storage) {
      const fencer = this.options.fencers.find((candidate) => candidate.name === fencerName);
      held.push(...((await fencer?.heldBy(name)) ?? []));
    }
    if (held.length > 0) {
      const message = `Node ${name} is back; it stays fenced while it still holds ${held.join(", ")} (a stale mount its kubelet has not torn down; a reboot ends it)`;
      if (this.refusals.get(name) !== message) {
        this.refusals.set(name, message);
        await this.setCondition(name, "True", reasonUnfenceWaiting, message);
      }
      return;
    }
    for (const fencerName of storage) {
      const fencer = this.options.fencers.find((candidate) => candidate.name === fencerName);
      await fencer?.unfence(name);
    }
    await this.context.client.nodes.mutate("", name, (draft) => {
      const annotations = { ...draft.metadata?.annotations };
      delete annotations[fencedAtAnnotation];
      delete annotations[fencedStorageAnnotation];
      draft.metadata = { ...draft.metadata, annotations };
      const taints = (draft.spec?.taints ?? []).filter((taint) => !sameTaint(taint, outOfServiceTaint));
      draft.spec = { ...draft.spec, taints };
      if (taints.length === 0) delete draft.spec.taints;
    });
    this.refusals.delete(name);
    const message = `Node ${name} is back and its kubelet has torn down every stale mount; its access to ${storage.join(", ")} is restored and the ${taintNodeOutOfService} taint removed`;
    this.logger.info("unfenced a node", { node: name });
    this.recorder.event(node, "Normal", reasonNodeUnfenced, message);
    await this.setCondition(name, "False", reasonNodeUnfenced, message);
  }

  private async ensureTainted(node: Node): Promise<void> {
    if ((node.spec?.taints ?? []).some((taint) => sameTaint(taint, outOfServiceTaint))) return;
    const nowMs = this.context.clock.now();
    await this.context.client.nodes.mutate("", node.metadata?.name ?? "", (draft) => {
      const taints = draft.spec?.taints ?? [];
      if (taints.some((taint) => sameTaint(taint, outOfServiceTaint))) return;
      draft.spec = { ...draft.spec, taints: [...taints, { ...outOfServiceTaint, timeAdded: formatRfc3339(nowMs) }] };
    });
  }

  private async setCondition(
    nodeName: string,
    status: "True" | "False",
    reason: string,
    message: string,
  ): Promise<void> {
    const now = formatRfc3339(this.context.clock.now());
    await this.context.client.nodes.mutate(
      "",
      nodeName,
      (draft) => {
        const conditions = [...(draft.status?.conditions ?? [])];
        const index = conditions.findIndex((condition) => condition.type === conditionStorageFenced);
        const old = index >= 0 ? conditions[index] : undefined;
        const condition: NodeCondition = {
          type: conditionStorageFenced,
          status,
          reason,
          message,
          lastHeartbeatTime: now,
          lastTransitionTime: old !== undefined && old.status === status ? (old.lastTransitionTime ?? now) : now,
        };
        if (index >= 0) conditions[index] = condition;
        else conditions.push(condition);
        draft.status = { ...draft.status, conditions };
      },
      { subresource: "status" },
    );
  }
}

function readyCondition(node: Node): NodeCondition | undefined {
  return node.status?.conditions?.find((condition) => condition.type === "Ready");
}

/** How a PV names its storage, for the refusal message (`csi nfs.csi.k8s.io`, `nfs`, `hostPath`). */
function storageKind(pv: PersistentVolume): string {
  const spec = pv.spec ?? {};
  if (spec.csi?.driver) return `CSI driver ${spec.csi.driver}`;
  const source = Object.keys(spec).find((key) =>
    ["nfs", "rbd", "hostPath", "local", "iscsi", "flexVolume", "fc", "cephfs"].includes(key),
  );
  return source ?? "an unknown volume source";
}
