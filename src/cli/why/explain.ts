/**
 * `kvol why KIND/NAME`: which chain to tell for each kind. A claim, volume, attachment or node
 * that blocks nothing by itself leads on to the pods that wait on it.
 */

import type { Pod } from "../../api/objects.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import { type Chain, timeMs } from "./chain.ts";
import { explainClaim, podsUsingClaim } from "./explain-claim.ts";
import { addNodeLink, isReady, outOfServiceCommand } from "./explain-node.ts";
import { explainPod } from "./explain-pod.ts";
import type { WhyReport } from "./why-report.ts";

export type WhyKind = "Pod" | "PersistentVolumeClaim" | "PersistentVolume" | "VolumeAttachment" | "Node";

export class ObjectNotFound extends Error {}

function isStuck(pod: Pod): boolean {
  if (pod.metadata?.deletionTimestamp !== undefined) return true;
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed") return false;
  const statuses = pod.status?.containerStatuses ?? [];
  return phase !== "Running" || statuses.some((status) => status.state?.running === undefined);
}

async function explainPodsOf(chain: Chain, pods: readonly Pod[]): Promise<void> {
  const stuck = pods.find(isStuck);
  if (stuck === undefined) {
    chain.todo("Nothing blocks: the pods that use it run.");
    return;
  }
  // The pod's own links continue this chain.
  await explainPod(chain, stuck);
}

async function explainClaimByName(chain: Chain, namespace: string, name: string): Promise<void> {
  const claim = await chain.reader.get("PersistentVolumeClaim", namespace, name);
  if (claim === undefined) throw new ObjectNotFound(`persistentvolumeclaims "${name}" not found`);
  if (await explainClaim(chain, claim)) return;
  await explainPodsOf(chain, await podsUsingClaim(chain, claim));
}

async function explainVolume(chain: Chain, name: string): Promise<void> {
  const pv = await chain.reader.get("PersistentVolume", "", name);
  if (pv === undefined) throw new ObjectNotFound(`persistentvolumes "${name}" not found`);
  const phase = pv.status?.phase ?? "Pending";
  const claimRef = pv.spec?.claimRef;
  const claimText = claimRef === undefined ? "" : ` to claim ${claimRef.namespace}/${claimRef.name}`;
  chain.add(`pv ${name}`, `${phase}${claimText}`, timeMs(pv.metadata?.creationTimestamp));
  // Where it is attached: the VolumeAttachments that name it (CSI volumes).
  const attachments = (await chain.reader.list("VolumeAttachment", "")).filter(
    (attachment) => attachment.spec.source.persistentVolumeName === name,
  );
  for (const attachment of attachments) {
    const state = attachment.status?.attached === true ? "attached to" : "attaching to";
    const detaching = attachment.metadata?.deletionTimestamp === undefined ? "" : ", being detached";
    chain.links
      .at(-1)
      ?.evidence.push(
        `${state} node ${attachment.spec.nodeName} (volumeattachment ${attachment.metadata?.name}${detaching})`,
      );
  }
  if (phase === "Released") {
    chain.todo(
      `Its reclaim policy is ${pv.spec?.persistentVolumeReclaimPolicy}: the data is kept. To bind it again, clear its claimRef: kubectl patch pv ${name} --type json -p '[{"op":"remove","path":"/spec/claimRef"}]'`,
    );
    return;
  }
  if (claimRef?.name === undefined) {
    chain.todo("No claim is bound to it.");
    return;
  }
  await explainClaimByName(chain, claimRef.namespace ?? "", claimRef.name);
}

async function explainAttachment(chain: Chain, name: string): Promise<void> {
  const attachment = await chain.reader.get("VolumeAttachment", "", name);
  if (attachment === undefined) throw new ObjectNotFound(`volumeattachments.storage.k8s.io "${name}" not found`);
  const { attacher, nodeName, source } = attachment.spec;
  const status = attachment.status;
  const state = status?.attached === true ? "attached" : "not attached";
  const error = status?.attachError ?? status?.detachError;
  chain.add(
    `volumeattachment ${name}`,
    `${state} (${attacher}, pv ${source.persistentVolumeName ?? "inline"} on node ${nodeName})${error?.message ? `: ${error.message}` : ""}`,
    timeMs(error?.time) ?? timeMs(attachment.metadata?.creationTimestamp),
  );
  if (attachment.metadata?.deletionTimestamp !== undefined) {
    const node = await chain.reader.get("Node", "", nodeName);
    addNodeLink(chain, nodeName, node);
    chain.todo(`Being detached by ${attacher}'s external-attacher (ControllerUnpublishVolume).`);
    return;
  }
  if (error?.message !== undefined) {
    chain.todo(`The external-attacher of ${attacher} retries with backoff; its driver's controller logs say more.`);
    return;
  }
  const pvName = source.persistentVolumeName;
  if (pvName === undefined) return;
  const pv = await chain.reader.get("PersistentVolume", "", pvName);
  await addDetachEvidence(chain, attacher, nodeName, pv?.spec?.csi?.volumeHandle);
  const claimRef = pv?.spec?.claimRef;
  if (claimRef?.name === undefined) return;
  await explainClaimByName(chain, claimRef.namespace ?? "", claimRef.name);
}

/** The attach/detach controller's wish to detach the volume from the node, and its force-detach time. */
async function addDetachEvidence(
  chain: Chain,
  attacher: string,
  nodeName: string,
  volumeHandle: string | undefined,
): Promise<void> {
  if (volumeHandle === undefined) return;
  const volumeName = `kubernetes.io/csi/${attacher}^${volumeHandle}`;
  const adc = await chain.reader.attachDetachState();
  const entry = adc?.actualStateOfWorld.find(
    (candidate) => candidate.nodeName === nodeName && candidate.volumeName === volumeName,
  );
  const requested = timeMs(entry?.detachRequestedTime);
  if (entry === undefined || requested === undefined) return;
  const forceAt = timeMs(entry.forceDetachTime);
  chain.links
    .at(-1)
    ?.evidence.push(
      `attach/detach controller: waiting to detach it from node ${nodeName}: wanted by no pod since ${formatRfc3339(requested)}${entry.mountedByNode ? ", still in use by the node" : ""}${forceAt === undefined ? "" : `; force detach due at ${formatRfc3339(forceAt)}`}`,
    );
}

async function explainNode(chain: Chain, name: string): Promise<void> {
  const node = await chain.reader.get("Node", "", name);
  if (node === undefined) throw new ObjectNotFound(`nodes "${name}" not found`);
  addNodeLink(chain, name, node);
  const attached = (node.status?.volumesAttached ?? []).map((volume) => volume.name);
  const inUse = node.status?.volumesInUse ?? [];
  if (attached.length > 0)
    chain.links
      .at(-1)
      ?.evidence.push(`volumes attached: ${attached.join(", ")}; in use: ${inUse.join(", ") || "none"}`);
  const adc = await chain.reader.attachDetachState();
  for (const entry of adc?.actualStateOfWorld.filter((candidate) => candidate.nodeName === name) ?? []) {
    const forceAt = timeMs(entry.forceDetachTime);
    if (forceAt === undefined) continue;
    chain.links
      .at(-1)
      ?.evidence.push(
        `attach/detach controller: ${entry.volumeName} wanted by no pod since ${formatRfc3339(timeMs(entry.detachRequestedTime) ?? 0)}; force detach due at ${formatRfc3339(forceAt)}${isReady(node) ? " (only if the node is not Ready then)" : ""}`,
      );
  }
  const pods = await chain.reader.list("Pod", "", `spec.nodeName=${name}`);
  const terminating = pods.filter((pod) => pod.metadata?.deletionTimestamp !== undefined);
  if (!isReady(node)) {
    for (const pod of terminating) {
      chain.add(
        `pod ${pod.metadata?.namespace}/${pod.metadata?.name}`,
        "Terminating: the node cannot confirm it stopped",
      );
    }
    chain.todo(
      `If node ${name} is really shut down: ${outOfServiceCommand(name)} (pods there are deleted and their volumes detached at once).`,
    );
    return;
  }
  if (terminating.length > 0) {
    await explainPod(chain, terminating[0] as Pod);
    return;
  }
  chain.todo("The node is Ready; nothing on it is stuck in Terminating.");
}

export async function explain(chain: Chain, kind: WhyKind, namespace: string, name: string): Promise<WhyReport> {
  if (kind === "Pod") {
    const pod = await chain.reader.get("Pod", namespace, name);
    if (pod === undefined) throw new ObjectNotFound(`pods "${name}" not found`);
    await explainPod(chain, pod);
  } else if (kind === "PersistentVolumeClaim") await explainClaimByName(chain, namespace, name);
  else if (kind === "PersistentVolume") await explainVolume(chain, name);
  else if (kind === "VolumeAttachment") await explainAttachment(chain, name);
  else await explainNode(chain, name);
  return {
    object: `${kind.toLowerCase()}/${name}`,
    time: formatRfc3339(chain.nowMs),
    links: chain.links,
    remedy: chain.remedy,
    unreadable: chain.reader.unreadable,
  };
}
