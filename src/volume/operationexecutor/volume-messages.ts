/**
 * Kubernetes' message grammar for volume operations (spec §6.2): `<prefix> for volume "<spec name>"
 * <suffix>`, where the suffix of an error is `: <err>` (hence the space before the colon) and an
 * empty suffix leaves a trailing space. Events carry the simple form; logs and the error kept for
 * backoff carry the detailed form, which adds the unique name and the pod or node.
 */

import { errorMessage } from "../../runtime/error-message.ts";
import { goQuote } from "../../runtime/go-quote.ts";

/** What names one volume in a message: its spec name and the detail the detailed form adds. */
export interface VolumeMessageSubject {
  /** The spec name (PV name for a claim, pod volume name inline); `nil` when the spec is unknown. */
  specName: string;
  /** `(UniqueName: "…") pod "…" (UID: "…")`, `(UniqueName: "…") from node "…"`, … */
  details: string;
}

/** `: <err>` for an error, "" without one. */
function errorSuffix(err: unknown): string {
  return err === undefined ? "" : `: ${errorMessage(err)}`;
}

/** The event form: `<prefix> for volume "<name>" <suffix>`. */
export function simpleVolumeMessage(prefix: string, subject: VolumeMessageSubject, suffix: string): string {
  return `${prefix} for volume ${goQuote(subject.specName)} ${suffix}`;
}

/** The log form: `<prefix> for volume "<name>" <details> <suffix>`. */
function detailedVolumeMessage(prefix: string, subject: VolumeMessageSubject, suffix: string): string {
  return `${prefix} for volume ${goQuote(subject.specName)} ${subject.details} ${suffix}`;
}

/**
 * An operation's failure: `message` is the detailed text (logged, kept as the backoff's last
 * error); `eventMessage` is the simple text users see in events; `cause` is the plugin's error,
 * whose class (uncertain, transient, precondition) decides the state the volume is left in.
 */
export class VolumeOperationError extends Error {
  readonly eventMessage: string;

  constructor(prefix: string, subject: VolumeMessageSubject, cause: unknown) {
    super(detailedVolumeMessage(prefix, subject, errorSuffix(cause)), { cause });
    this.name = "VolumeOperationError";
    this.eventMessage = simpleVolumeMessage(prefix, subject, errorSuffix(cause));
  }
}

/** `(UniqueName: "<vol>") from node "<node>"`: a volume to attach. */
export function attachDetails(volumeName: string, nodeName: string): string {
  return `(UniqueName: ${goQuote(volumeName)}) from node ${goQuote(nodeName)}`;
}

/** `(UniqueName: "<vol>") on node "<node>"`: an attached volume (detach, unmount device). */
export function attachedDetails(volumeName: string, nodeName: string): string {
  return `(UniqueName: ${goQuote(volumeName)}) on node ${goQuote(nodeName)}`;
}

/** `(UniqueName: "<vol>") pod "<pod>" (UID: "<uid>")`: a pod's volume (mount, unmount, map). */
export function podVolumeDetails(volumeName: string, podName: string, podUID: string): string {
  return `(UniqueName: ${goQuote(volumeName)}) pod ${goQuote(podName)} (UID: ${goQuote(podUID)})`;
}
