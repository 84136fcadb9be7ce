/**
 * Why a volume is not attached to the pod's node: Multi-Attach (attached elsewhere, and to whom),
 * an attach failing and backing off, a VolumeAttachment's error — told from the attach/detach
 * controller's debug state, the VolumeAttachments, the nodes and the pods that hold the volume.
 */
import type { AttachDetachActualVolume, AttachDetachControllerDebugState } from "../../api/debug/debug-state.ts";
import type { Event, Pod, VolumeAttachment } from "../../api/objects.ts";
import { causeFirstSeenMs } from "./cause-since.ts";
import { type Chain, clockTime, firstLine, timeMs } from "./chain.ts";
import { addNodeLink, hasOutOfServiceTaint, isReady, outOfServiceCommand } from "./explain-node.ts";
import { knownOperationDiagnosis } from "./operation-diagnosis.ts";

interface AttachQuestion {
  /** The unique volume name the controllers use. */
  volumeName: string;
  /** How the user knows the volume: `pv user-pv`, `volume "data"`. */
  label: string;
  nodeName: string;
  pod: Pod;
  /** The PV, when the volume is one (its VolumeAttachment names it). */
  pvName?: string;
}

function attachedTo(state: AttachDetachControllerDebugState, volumeName: string): AttachDetachActualVolume[] {
  return state.actualStateOfWorld.filter((entry) => entry.volumeName === volumeName);
}

/**
 * Adds the links of an attach that has not happened; returns false when the volume is attached to
 * the node (nothing blocks on this side).
 */
export async function explainAttach(chain: Chain, question: AttachQuestion): Promise<boolean> {
  const state = await chain.reader.attachDetachState();
  if (state === undefined) return explainAttachFromObjects(chain, question);
  const entries = attachedTo(state, question.volumeName);
  if (entries.some((entry) => entry.nodeName === question.nodeName && entry.attachState === "Attached")) return false;
  const elsewhere = entries.filter((entry) => entry.nodeName !== question.nodeName && entry.attachState === "Attached");
  if (elsewhere.length > 0) {
    await explainMultiAttach(chain, question, state, elsewhere);
    return true;
  }
  const operation = state.operations.find(
    (candidate) => candidate.volumeName === question.volumeName && candidate.lastError !== undefined,
  );
  const allEvents = await podEvents(chain, question.pod);
  const events = allEvents.filter((event) => event.reason === "FailedAttachVolume");
  const evidence = newEvidence(
    chain,
    events.slice(-1).map((event) => chain.eventEvidence(event)),
  );
  if (operation?.lastError !== undefined) {
    const until = timeMs(operation.noRetriesPermittedUntil);
    evidence.push(
      `attach/detach controller: ${operation.operationName} failed${until === undefined ? "" : `; no retries permitted until ${clockTime(until)} (durationBeforeRetry ${operation.durationBeforeRetry})`}`,
    );
    chain.add(
      question.label,
      `not attached to node ${question.nodeName}: attach failing: ${firstLine(operation.lastError)}`,
      causeFirstSeenMs(allEvents, operation.lastError),
      evidence,
    );
    const known = knownOperationDiagnosis(operation.lastError, question.nodeName);
    if (known !== undefined) chain.add(`node ${question.nodeName}`, known.state);
    chain.todo(
      ...(known?.remedy ?? []),
      "The attach is retried with exponential backoff (up to 2m2s apart); fix what the error names.",
    );
    return true;
  }
  await explainAttachFromObjects(chain, question, evidence, allEvents);
  return true;
}

/** Without the controller's state: the VolumeAttachment and the events say what they can. */
async function explainAttachFromObjects(
  chain: Chain,
  question: AttachQuestion,
  evidence: string[] = [],
  podEventList?: readonly Event[],
): Promise<boolean> {
  const attachment = await volumeAttachmentOf(chain, question);
  if (attachment?.status?.attached === true) return false;
  const error = attachment?.status?.attachError;
  if (error?.message !== undefined) {
    chain.add(
      `volumeattachment ${attachment?.metadata?.name}`,
      `attach failing: ${error.message}`,
      causeFirstSeenMs(podEventList ?? (await podEvents(chain, question.pod)), error.message),
      evidence,
    );
    chain.todo(
      "The external-attacher retries with backoff; fix what the error names (the CSI driver's controller logs say more).",
    );
    return true;
  }
  chain.add(question.label, `not attached to node ${question.nodeName} yet`, undefined, evidence);
  chain.todo(
    "Attaching is under way; if it stays so, check the CSI driver's external-attacher (or the attach/detach controller).",
  );
  return true;
}

async function volumeAttachmentOf(chain: Chain, question: AttachQuestion): Promise<VolumeAttachment | undefined> {
  if (question.pvName === undefined) return undefined;
  const attachments = await chain.reader.list("VolumeAttachment");
  return attachments.find(
    (attachment) =>
      attachment.spec.source.persistentVolumeName === question.pvName && attachment.spec.nodeName === question.nodeName,
  );
}

async function podEvents(chain: Chain, pod: Pod) {
  return chain.reader.events("Pod", pod.metadata?.namespace ?? "", pod.metadata?.name ?? "");
}

async function explainMultiAttach(
  chain: Chain,
  question: AttachQuestion,
  state: AttachDetachControllerDebugState,
  elsewhere: readonly AttachDetachActualVolume[],
): Promise<void> {
  const [holder] = elsewhere;
  if (holder === undefined) return;
  const events = (await podEvents(chain, question.pod)).filter((event) =>
    (event.message ?? "").startsWith("Multi-Attach error"),
  );
  chain.add(
    question.label,
    `not attached to node ${question.nodeName}: Multi-Attach, the volume is attached to node ${holder.nodeName}`,
    undefined,
    newEvidence(
      chain,
      events.slice(-1).map((event) => chain.eventEvidence(event)),
    ),
  );
  const wanting = state.desiredStateOfWorld
    .filter((entry) => entry.volumeName === question.volumeName && entry.nodeName === holder.nodeName)
    .flatMap((entry) => entry.pods);
  const node = await chain.reader.get("Node", "", holder.nodeName);
  for (const wanted of wanting.slice(0, 1)) {
    const pod = await chain.reader.get("Pod", wanted.namespace, wanted.name);
    const deletion = timeMs(pod?.metadata?.deletionTimestamp);
    const grace = (pod?.metadata?.deletionGracePeriodSeconds ?? 0) * 1000;
    const state =
      deletion === undefined
        ? `uses it on node ${holder.nodeName}`
        : `Terminating on node ${holder.nodeName}, still holding the volume`;
    chain.add(
      `pod ${wanted.namespace}/${wanted.name} (uid ${wanted.uid})`,
      state,
      deletion === undefined ? undefined : deletion - grace,
    );
  }
  addNodeLink(chain, holder.nodeName, node);
  forceDetachRemedy(chain, holder, wanting, node === undefined ? false : isReady(node), hasOutOfServiceTaint(node));
}

function forceDetachRemedy(
  chain: Chain,
  holder: AttachDetachActualVolume,
  wanting: readonly { namespace: string; name: string }[],
  holderReady: boolean,
  tainted: boolean,
): void {
  const node = holder.nodeName;
  if (tainted) {
    chain.todo(
      `Node ${node} carries the out-of-service taint: the attach/detach controller detaches the volume as soon as no pod there wants it.`,
    );
    return;
  }
  const forceAt = timeMs(holder.forceDetachTime);
  if (wanting.length > 0) {
    const [pod] = wanting;
    chain.todo(
      `The attach/detach controller force-detaches the volume from ${node} 6 min after the pod object ${pod?.namespace}/${pod?.name} is gone` +
        (holderReady
          ? ", if node is not Ready by then."
          : `; while ${node} is unreachable the pod stays Terminating and that time never comes.`),
    );
  } else if (forceAt !== undefined) {
    chain.todo(
      `The attach/detach controller force-detaches the volume from ${node} at ${clockTime(forceAt)} (in ${chain.untilTime(forceAt)}), ` +
        "6 min after the pod object went, as the node still reports it in use" +
        (holderReady ? " — only if the node is not Ready by then." : "."),
    );
  }
  if (!holderReady) {
    chain.todo(`Or now, if node ${node} is really shut down (not just cut off): ${outOfServiceCommand(node)}`);
  }
}

/** The lines no earlier link shows: the pod's own link may already show the event, print it once. */
function newEvidence(chain: Chain, lines: string[]): string[] {
  const shown = new Set(chain.links.flatMap((link) => link.evidence));
  return lines.filter((line) => !shown.has(line));
}
