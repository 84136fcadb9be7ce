/**
 * How long a pod has been stuck on one cause. The kubelet's and the attach/detach controller's
 * backoff records keep only the last failure, so an age taken from them restarts at every retry
 * ("for 0s" after each attempt). The events about the pod keep the first: each failure is reported
 * as an event, and the earliest event with the same cause says since when, as `kubectl describe`'s
 * events do. Without such an event (events expire after the API server's --event-ttl, 1 h by
 * default) the age is not known, and none is shown.
 */
import type { Event } from "../../api/objects.ts";
import { parseRfc3339 } from "../../runtime/clock.ts";

/** Kubernetes joins an operation's context and its cause with " : " (`MountVolume.SetUp failed for volume "v" : <cause>`). */
const causeSeparator = " : ";

/**
 * The cause in an operation error or an event message: the first line, after the operation's
 * context. The detailed error of the backoff record (`… (UniqueName: "…") pod "p" (UID: "…") : cause`)
 * and the event's simple one (`… for volume "v" : cause`) have the same cause.
 */
export function causeOf(message: string): string {
  const line = message.split("\n")[0] ?? "";
  const at = line.indexOf(causeSeparator);
  return (at === -1 ? line : line.slice(at + causeSeparator.length)).trim();
}

/** When the event first happened (epoch ms): firstTimestamp, or eventTime for events.k8s.io events; undefined without either. */
export function firstSeenMs(event: Event): number | undefined {
  const text = event.firstTimestamp ?? event.eventTime ?? event.metadata?.creationTimestamp;
  const ms = text === undefined ? Number.NaN : parseRfc3339(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The first time an event about the object reported the cause of `error`; undefined when none did. */
export function causeFirstSeenMs(events: readonly Event[], error: string): number | undefined {
  const cause = causeOf(error);
  if (cause === "") return undefined;
  let earliest: number | undefined;
  for (const event of events) {
    if (event.type !== "Warning" || causeOf(event.message ?? "") !== cause) continue;
    const at = firstSeenMs(event);
    if (at !== undefined && (earliest === undefined || at < earliest)) earliest = at;
  }
  return earliest;
}
