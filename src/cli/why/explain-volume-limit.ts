/**
 * The volume-limit chain: a pod the scheduler left Pending with "node(s) exceed max volume count".
 * For each node where one of the pod's CSI drivers is at its limit, it says how many of how many
 * (the CSINode's `allocatable.count`), what fills the slots (the pods' claims and the
 * VolumeAttachments), and how many the pod would add — counted as the scheduler's NodeVolumeLimits
 * filter counts, from the same objects read over the API.
 */
import type { Pod } from "../../api/objects.ts";
import { VolumeLimits } from "../../controllers/scheduler/volume-limits.ts";
import type { Chain } from "./chain.ts";

/** Kubernetes' NodeVolumeLimits verdict, as the FailedScheduling message carries it. */
const maxVolumeCountExceeded = "node(s) exceed max volume count";

/** Placeholder handles of unbound claims; any prefix no real handle has will do when reading. */
const unboundHandlePrefix = "kvol-why-unbound";

export function isVolumeLimitVerdict(message: string | undefined): boolean {
  return message?.includes(maxVolumeCountExceeded) === true;
}

function podName(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`;
}

async function readLimits(chain: Chain): Promise<{ limits: VolumeLimits; nodeNames: string[]; active: Pod[] }> {
  const { reader } = chain;
  const [nodes, csiNodes, pods, claims, volumes, classes, attachments] = await Promise.all([
    reader.list("Node"),
    reader.list("CSINode"),
    reader.list("Pod"),
    reader.list("PersistentVolumeClaim"),
    reader.list("PersistentVolume"),
    reader.list("StorageClass"),
    reader.list("VolumeAttachment"),
  ]);
  const byName = <T extends { metadata?: { name?: string; namespace?: string } }>(items: T[]) =>
    new Map(items.map((item) => [`${item.metadata?.namespace ?? ""}/${item.metadata?.name ?? ""}`, item]));
  const csiNodeMap = byName(csiNodes);
  const claimMap = byName(claims);
  const volumeMap = byName(volumes);
  const classMap = byName(classes);
  const active = pods.filter((pod) => pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed");
  const limits = new VolumeLimits(
    {
      csiNode: (nodeName) => csiNodeMap.get(`/${nodeName}`),
      podsOnNode: (nodeName) => active.filter((pod) => pod.spec?.nodeName === nodeName),
      attachmentsOnNode: (nodeName) => attachments.filter((attachment) => attachment.spec?.nodeName === nodeName),
      claim: (namespace, name) => claimMap.get(`${namespace}/${name}`),
      volume: (name) => volumeMap.get(`/${name}`),
      storageClassProvisioner: (name) => classMap.get(`/${name}`)?.provisioner,
    },
    unboundHandlePrefix,
  );
  const nodeNames = nodes.map((node) => node.metadata?.name ?? "").sort();
  return { limits, nodeNames, active };
}

/** What fills a driver's slots on the node: the pods with its volumes, then attachments no pod there explains. */
function occupants(limits: VolumeLimits, pods: readonly Pod[], nodeName: string, driver: string): string[] {
  const counted = new Set<string>();
  const evidence: string[] = [];
  for (const pod of pods) {
    const mine = [...limits.attachableVolumes(pod)].filter(([unique, of]) => of === driver && !counted.has(unique));
    for (const [unique] of mine) counted.add(unique);
    if (mine.length > 0) evidence.push(`pod ${podName(pod)}: ${mine.length} ${driver} volume(s)`);
  }
  const leftOver = [...limits.attachedVolumes(nodeName)].filter(
    ([unique, of]) => of === driver && !counted.has(unique),
  );
  if (leftOver.length > 0) {
    evidence.push(
      `${leftOver.length} VolumeAttachment(s) of ${driver} for pods no longer on the node (still detaching)`,
    );
  }
  return evidence;
}

/** Adds a link per node at its limit and the remedy; false when no node is at a limit (any more). */
export async function explainVolumeLimit(chain: Chain, pod: Pod): Promise<boolean> {
  const { limits, nodeNames, active } = await readLimits(chain);
  const full: { nodeName: string; driver: string; limit: number }[] = [];
  for (const nodeName of nodeNames) {
    for (const count of limits.driverCounts(pod, nodeName)) {
      if (count.attached + count.added <= count.limit) continue;
      const onNode = active.filter((candidate) => candidate.spec?.nodeName === nodeName);
      chain.add(
        `node ${nodeName}`,
        `${count.driver} volume limit reached: ${count.attached} of ${count.limit} in use, the pod needs ${count.added} more`,
        undefined,
        [
          `CSINode ${nodeName}: ${count.driver} allocatable count ${count.limit} (the driver's max_volumes_per_node)`,
          ...occupants(limits, onNode, nodeName, count.driver),
        ],
      );
      full.push({ nodeName, driver: count.driver, limit: count.limit });
    }
  }
  if (full.length === 0) return false;
  const first = full[0] as (typeof full)[number];
  chain.todo(
    `Free a slot: delete or move a pod that uses ${first.driver} volumes on ${first.nodeName} (kubectl get pods -A --field-selector spec.nodeName=${first.nodeName}); once its volume is detached the scheduler tries again.`,
    `Or add a node: its ${first.driver} plugin reports its own limit, and the pod is placed there.`,
    `Or, if the machine can attach more, raise ${first.driver}'s max_volumes_per_node on its node plugin; the kubelet writes it to the CSINode when the plugin registers (kubectl get csinode ${first.nodeName} -o yaml).`,
  );
  return true;
}
