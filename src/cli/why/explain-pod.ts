/**
 * Pod chains: a pod that is not scheduled, not started (ContainerCreating: its volumes, one by
 * one, down to the claim, the attach and the kubelet's mount), running on a broken mount, or
 * stuck Terminating (a node that is down, a teardown that fails).
 */

import type { Volume } from "kubernetes-types/core/v1.js";
import type { KubeletVolumeManagerDebugState, OperationDebugState } from "../../api/debug/debug-state.ts";
import type { Event, Pod } from "../../api/objects.ts";
import { causeFirstSeenMs } from "./cause-since.ts";
import { type Chain, clockTime, timeMs } from "./chain.ts";
import { explainAttach } from "./explain-attach.ts";
import { explainClaim } from "./explain-claim.ts";
import { addNodeLink, isReady, outOfServiceCommand } from "./explain-node.ts";
import { explainVolumeLimit, isVolumeLimitVerdict } from "./explain-volume-limit.ts";
import { diagnoseOperationError } from "./operation-diagnosis.ts";
import { lastSeenMs } from "./why-reader.ts";

/** The events about the pod, oldest first. */
function podEvents(chain: Chain, pod: Pod): Promise<Event[]> {
  return chain.reader.events("Pod", pod.metadata?.namespace ?? "", pod.metadata?.name ?? "");
}

function podRef(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`;
}

function waitingReason(pod: Pod): string | undefined {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  return statuses.find((status) => status.state?.waiting !== undefined)?.state?.waiting?.reason;
}

function scheduledAtMs(pod: Pod): number | undefined {
  const condition = pod.status?.conditions?.find((candidate) => candidate.type === "PodScheduled");
  return timeMs(condition?.lastTransitionTime) ?? timeMs(pod.metadata?.creationTimestamp);
}

/** The pod's latest warnings (two at most) as evidence of the pod's own link. */
const podWarningsShown = 2;

export async function explainPod(chain: Chain, pod: Pod): Promise<void> {
  const events = await podEvents(chain, pod);
  const warnings = events.filter((event) => event.type === "Warning");
  const latest = warnings.slice(-podWarningsShown);
  const evidence = latest.map((event) => chain.eventEvidence(event));
  const nodeName = pod.spec?.nodeName ?? "";
  if (pod.metadata?.deletionTimestamp !== undefined) return explainTerminating(chain, pod, evidence);
  if (nodeName === "") return explainUnscheduled(chain, pod, evidence);
  const phase = pod.status?.phase ?? "Pending";
  const waiting = waitingReason(pod);
  const state = waiting === undefined ? phase : `${phase}, ${waiting}`;
  const podLink = chain.add(`pod ${podRef(pod)}`, `${state} on node ${nodeName}`, scheduledAtMs(pod), evidence);
  for (const volume of pod.spec?.volumes ?? []) {
    if (await explainPodVolume(chain, pod, volume)) return;
  }
  const brokenMount = warnings
    .filter((event) => /transport endpoint is not connected/i.test(event.message ?? ""))
    .at(-1);
  if (brokenMount !== undefined && !restartedSince(pod, lastSeenMs(brokenMount))) {
    const diagnosis = diagnoseOperationError(brokenMount.message ?? "", nodeName);
    // The event is the broken mount's evidence, shown there: the pod's link keeps its other warning.
    podLink.evidence = latest.filter((event) => event !== brokenMount).map((event) => chain.eventEvidence(event));
    chain.add("a volume mount of the pod", diagnosis.state, undefined, [chain.eventEvidence(brokenMount)]);
    chain.todo(...diagnosis.remedy);
    return;
  }
  if (waiting === undefined && phase === "Running") {
    chain.todo("Nothing blocks this pod's volumes.");
    return;
  }
  chain.todo("No volume blocks this pod; its events above say what does.");
}

/**
 * Whether every container runs in an instance started at or after `atMs`: a broken mount reported
 * then is behind it (kvol's kubelet republishes a corrupted CSI mount at the restart; a mount still
 * broken fails the new container's probes, or keeps the container from being created at all).
 */
function restartedSince(pod: Pod, atMs: number): boolean {
  const statuses = pod.status?.containerStatuses ?? [];
  return (
    statuses.length > 0 &&
    statuses.every((status) => {
      const startedAtMs = timeMs(status.state?.running?.startedAt);
      return startedAtMs !== undefined && startedAtMs >= atMs;
    })
  );
}

async function explainUnscheduled(chain: Chain, pod: Pod, evidence: string[]): Promise<void> {
  const condition = pod.status?.conditions?.find((candidate) => candidate.type === "PodScheduled");
  chain.add(
    `pod ${podRef(pod)}`,
    `Pending, not scheduled${condition?.message ? `: ${condition.message}` : ""}`,
    timeMs(pod.metadata?.creationTimestamp),
    evidence,
  );
  // A WaitForFirstConsumer claim waits for the pod; what keeps the pod from a node comes first.
  if (isVolumeLimitVerdict(condition?.message) && (await explainVolumeLimit(chain, pod))) return;
  for (const volume of pod.spec?.volumes ?? []) {
    const claimName = volume.persistentVolumeClaim?.claimName;
    if (claimName === undefined) continue;
    const claim = await chain.reader.get("PersistentVolumeClaim", pod.metadata?.namespace ?? "", claimName);
    if (claim === undefined) {
      chain.add(`volume "${volume.name}"`, `claim ${claimName} not found`);
      chain.todo(`Create the claim ${claimName} in namespace ${pod.metadata?.namespace}.`);
      return;
    }
    if (claim.status?.phase !== "Bound" && (await explainClaim(chain, claim, pod))) return;
  }
  chain.todo("See the scheduler's FailedScheduling event above for which nodes were ruled out and why.");
}

/** Adds the links of one volume of a pod on its node; true when it blocks the pod. */
async function explainPodVolume(chain: Chain, pod: Pod, volume: Volume): Promise<boolean> {
  const namespace = pod.metadata?.namespace ?? "";
  const referenced = volume.secret?.secretName ?? volume.configMap?.name;
  if (referenced !== undefined) {
    const kind = volume.secret !== undefined ? "Secret" : "ConfigMap";
    const optional = volume.secret?.optional ?? volume.configMap?.optional ?? false;
    if (!optional && (await chain.reader.get(kind, namespace, referenced)) === undefined) {
      await addKubeletEvidence(
        chain,
        pod,
        volume.name,
        `volume "${volume.name}"`,
        `${kind.toLowerCase()} ${namespace}/${referenced} not found`,
      );
      chain.todo(
        `Create ${kind.toLowerCase()} ${referenced} in namespace ${namespace} (or mark the volume optional); the kubelet's next retry mounts it and the pod starts.`,
      );
      return true;
    }
  }
  const linksBefore = chain.links.length;
  const claimName = volume.persistentVolumeClaim?.claimName;
  let pvName: string | undefined;
  let label = `volume "${volume.name}"`;
  if (claimName !== undefined) {
    const claim = await chain.reader.get("PersistentVolumeClaim", namespace, claimName);
    chain.add(`volume "${volume.name}"`, `claim ${namespace}/${claimName}`);
    if (claim === undefined) {
      chain.add(`claim ${namespace}/${claimName}`, "not found");
      chain.todo(`Create the claim ${claimName} in namespace ${namespace}.`);
      return true;
    }
    if (await explainClaim(chain, claim, pod)) return true;
    pvName = claim.spec?.volumeName;
    label = `pv ${pvName}`;
  }
  const blocked = await explainOnNode(chain, pod, volume.name, label, pvName);
  // A volume that blocks nothing is left out of the chain.
  if (!blocked) chain.links.splice(linksBefore);
  return blocked;
}

/** The kubelet's and the controllers' view of one pod volume on its node; true when it blocks. */
async function explainOnNode(
  chain: Chain,
  pod: Pod,
  specName: string,
  label: string,
  pvName?: string,
): Promise<boolean> {
  const nodeName = pod.spec?.nodeName ?? "";
  const uid = pod.metadata?.uid ?? "";
  const kubelet = await chain.reader.kubeletState(nodeName);
  const desired = kubelet?.desiredStateOfWorld.find((entry) =>
    entry.pods.some((candidate) => candidate.podUID === uid && candidate.outerVolumeSpecName === specName),
  );
  const volumeName = desired?.volumeName ?? (await adcVolumeName(chain, uid, nodeName));
  if (volumeName === undefined) return false;
  const mounted = kubelet?.actualStateOfWorld
    .find((entry) => entry.volumeName === volumeName)
    ?.pods.find((candidate) => candidate.podUID === uid);
  if (mounted?.volumeMountState === "VolumeMounted") return false;
  const attachable = desired?.pluginIsAttachable ?? true;
  if (attachable) {
    const question = { volumeName, label, nodeName, pod, ...(pvName === undefined ? {} : { pvName }) };
    if (await explainAttach(chain, question)) return true;
  }
  if (kubelet === undefined) return false;
  const events = await podEvents(chain, pod);
  if (explainKubeletMount(chain, kubelet, pod, events, volumeName, label)) return true;
  if (desired === undefined || mounted !== undefined) return false;
  // Wanted but neither mounted nor being mounted: the kubelet's reconciler starts it on its next pass.
  chain.add(label, `not yet mounted on node ${nodeName}: the kubelet has not started mounting it`, undefined, [
    `kubelet: ${volumeName} is in the desired state of the world, not yet in the actual state`,
  ]);
  chain.todo("Wait: the kubelet's volume manager mounts it on its next pass (every 100ms).");
  return true;
}

async function adcVolumeName(chain: Chain, uid: string, nodeName: string): Promise<string | undefined> {
  const state = await chain.reader.attachDetachState();
  return state?.desiredStateOfWorld.find(
    (entry) => entry.nodeName === nodeName && entry.pods.some((pod) => pod.uid === uid),
  )?.volumeName;
}

/** The operation's backoff, then its whole error (mount's output included). */
function operationEvidence(chain: Chain, operation: OperationDebugState): string[] {
  const until = timeMs(operation.noRetriesPermittedUntil);
  const failedAt = timeMs(operation.lastErrorTime);
  const ago = failedAt === undefined ? "" : ` ${chain.ago(failedAt)} ago`;
  const retry =
    until === undefined
      ? ""
      : `; no retries permitted until ${clockTime(until)} (durationBeforeRetry ${operation.durationBeforeRetry})`;
  return [`kubelet: ${operation.operationName} failed${ago}${retry}`, `error: ${(operation.lastError ?? "").trim()}`];
}

/** The kubelet's mount of the volume: a failing operation, or an uncertain mount. */
function explainKubeletMount(
  chain: Chain,
  kubelet: KubeletVolumeManagerDebugState,
  pod: Pod,
  events: readonly Event[],
  volumeName: string,
  label: string,
): boolean {
  const uid = pod.metadata?.uid ?? "";
  const nodeName = kubelet.nodeName;
  const failing = kubelet.operations.filter(
    (operation) =>
      operation.volumeName === volumeName &&
      (operation.podName === uid || operation.podName === "") &&
      operation.lastError !== undefined,
  );
  const actual = kubelet.actualStateOfWorld.find((entry) => entry.volumeName === volumeName);
  const uncertainPod = actual?.pods.find(
    (candidate) => candidate.podUID === uid && candidate.volumeMountState === "VolumeMountUncertain",
  );
  const uncertain = uncertainPod !== undefined || actual?.deviceMountState === "DeviceMountUncertain";
  // The kubelet's own record of the uncertain mount, so the user sees where it may be mounted.
  const uncertainEvidence =
    uncertainPod !== undefined
      ? [`kubelet: VolumeMountUncertain for pod ${uid} of ${volumeName}`]
      : uncertain
        ? [`kubelet: DeviceMountUncertain for ${volumeName} at ${actual?.deviceMountPath ?? ""}`]
        : [];
  const [operation] = failing;
  if (operation?.lastError !== undefined) {
    const diagnosis = diagnoseOperationError(operation.lastError, nodeName);
    const state = uncertain ? `${diagnosis.state} (mount uncertain: it may or may not be mounted)` : diagnosis.state;
    chain.add(label, `not mounted on node ${nodeName}: ${state}`, causeFirstSeenMs(events, operation.lastError), [
      ...operationEvidence(chain, operation),
      ...uncertainEvidence,
    ]);
    chain.todo(...diagnosis.remedy);
    const until = timeMs(operation.noRetriesPermittedUntil);
    if (until !== undefined && until > chain.nowMs) {
      chain.todo(
        `The kubelet's next attempt is at ${clockTime(until)} (in ${chain.untilTime(until)}): operations in backoff wait 500ms doubling up to 2m2s.`,
      );
    }
    return true;
  }
  const running = kubelet.operations.find(
    (candidate) =>
      candidate.volumeName === volumeName &&
      candidate.running &&
      (candidate.podName === uid || candidate.podName === ""),
  );
  if (running !== undefined && !uncertain) {
    chain.add(label, `being mounted on node ${nodeName}: ${running.operationName} is running`);
    chain.todo("Wait: the kubelet's mount is under way.");
    return true;
  }
  if (uncertain) {
    const what = uncertainPod !== undefined ? "the pod's mount" : "the device's global mount";
    chain.add(
      label,
      `mount uncertain on node ${nodeName}: ${what} may or may not have happened`,
      undefined,
      uncertainEvidence,
    );
    chain.todo(
      "The kubelet mounts it again (mounts are idempotent) at its next pass, or tears it down if the pod goes.",
    );
    return true;
  }
  return false;
}

/** Adds the volume link with the kubelet's failing operation for it, if any. */
async function addKubeletEvidence(
  chain: Chain,
  pod: Pod,
  specName: string,
  label: string,
  state: string,
): Promise<void> {
  const kubelet = await chain.reader.kubeletState(pod.spec?.nodeName ?? "");
  const uid = pod.metadata?.uid ?? "";
  const desired = kubelet?.desiredStateOfWorld.find((entry) =>
    entry.pods.some((candidate) => candidate.podUID === uid && candidate.outerVolumeSpecName === specName),
  );
  const operation = kubelet?.operations.find(
    (candidate) => candidate.volumeName === desired?.volumeName && candidate.lastError !== undefined,
  );
  const since =
    operation?.lastError === undefined ? undefined : causeFirstSeenMs(await podEvents(chain, pod), operation.lastError);
  chain.add(label, state, since, operation === undefined ? [] : operationEvidence(chain, operation));
}

async function explainTerminating(chain: Chain, pod: Pod, evidence: string[]): Promise<void> {
  const deletion = timeMs(pod.metadata?.deletionTimestamp) ?? chain.nowMs;
  const grace = (pod.metadata?.deletionGracePeriodSeconds ?? 0) * 1000;
  const nodeName = pod.spec?.nodeName ?? "";
  chain.add(
    `pod ${podRef(pod)}`,
    `Terminating${nodeName === "" ? "" : ` on node ${nodeName}`}`,
    deletion - grace,
    evidence,
  );
  if (nodeName === "") return;
  const node = await chain.reader.get("Node", "", nodeName);
  if (!isReady(node)) {
    addNodeLink(chain, nodeName, node);
    chain.todo(
      `The kubelet of ${nodeName} cannot confirm the pod stopped, so the pod object stays. If the node is really shut down: ${outOfServiceCommand(nodeName)}`,
      `(or kubectl delete pod -n ${pod.metadata?.namespace} ${pod.metadata?.name} --force --grace-period=0; its volumes are then force-detached 6 min later)`,
    );
    return;
  }
  const kubelet = await chain.reader.kubeletState(nodeName);
  const uid = pod.metadata?.uid ?? "";
  const failing = kubelet?.operations.find(
    (operation) => operation.podName === uid && operation.lastError !== undefined,
  );
  if (kubelet === undefined || failing?.lastError === undefined) {
    chain.todo("The kubelet is tearing the pod down; its events above say what it waits for.");
    return;
  }
  const diagnosis = diagnoseOperationError(failing.lastError, nodeName);
  const spec = kubelet.actualStateOfWorld
    .find((entry) => entry.volumeName === failing.volumeName)
    ?.pods.find((candidate) => candidate.podUID === uid)?.outerVolumeSpecName;
  chain.add(
    `volume "${spec ?? failing.volumeName}"`,
    `teardown failing: ${diagnosis.state}`,
    causeFirstSeenMs(await podEvents(chain, pod), failing.lastError),
    operationEvidence(chain, failing),
  );
  for (const busy of kubelet.busyMounts) {
    const holders = busy.processes.map((process) => `pid ${process.pid} (${process.command})`).join(", ");
    chain.add(
      `mount ${busy.mountPoint}`,
      holders === "" ? "busy; the node cannot name the holder" : `held by ${holders}`,
    );
  }
  chain.todo(...diagnosis.remedy);
}
