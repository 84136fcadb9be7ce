/**
 * Which log lines make the timeline: warnings and errors, and the volume operations' outcomes
 * (`MountVolume.SetUp succeeded`, `UnmountDevice succeeded`, `AttachVolume.Attach failed`), the
 * lines an operator greps the kubelet and controller-manager logs for. Routine loop chatter stays out.
 */
import type { LogRecord } from "../../runtime/logger.ts";

const volumeOperationPattern =
  /^(MountVolume|UnmountVolume|UnmountDevice|MapVolume|UnmapVolume|UnmapDevice|AttachVolume|DetachVolume|Verify\w*|WaitForAttach)\b.*\b(succeeded|failed|started)\b/;

export function isHighlight(record: LogRecord): boolean {
  if (record.level === "warn" || record.level === "error") return true;
  return volumeOperationPattern.test(record.message);
}

/**
 * The object a log line is about, from its fields: the pod (its uid translated by `podNames`, uid →
 * `namespace/name`), else the node, else the volume; "" when none is given.
 */
export function logObject(record: LogRecord, podNames: ReadonlyMap<string, string>): string {
  const fields = new Map(record.fields);
  const pod = fields.get("pod");
  const podName = pod === undefined ? undefined : podNames.get(pod);
  if (podName !== undefined) return `pod ${podName}`;
  const node = fields.get("node");
  if (node !== undefined) return `node ${node}`;
  const volume = fields.get("volume") ?? fields.get("pv");
  return volume === undefined ? "" : `volume ${volume}`;
}
