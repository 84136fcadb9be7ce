/**
 * `kvol describe node`: roles, labels, taints, conditions, addresses, the volumes attached and in
 * use (what storage questions start from), the pods on the node, and the node's events — found by
 * its uid and by its name, as the kubelet records node events with the name as uid.
 */
import type { Event, Node } from "../../api/objects.ts";
import { nodeRolesText } from "../../api/printers/node-printer.ts";
import { DescribeText, describeTime } from "../client/describe-text.ts";
import { type DescribeContext, involvedObjectOf, listPods, searchEvents } from "./describe-context.ts";

function unique(events: readonly Event[]): Event[] {
  const seen = new Map<string, Event>();
  for (const event of events) seen.set(`${event.metadata.namespace ?? ""}/${event.metadata.name ?? ""}`, event);
  return [...seen.values()];
}

export async function describeNode(context: DescribeContext, node: Node): Promise<string> {
  const text = new DescribeText();
  const meta = node.metadata ?? {};
  const name = meta.name ?? "";
  text.line(0, "Name:", name).line(0, "Roles:", nodeRolesText(node));
  text.map(0, "Labels:", meta.labels).map(0, "Annotations:", meta.annotations);
  text.line(0, "CreationTimestamp:", describeTime(meta.creationTimestamp));
  text.list(
    0,
    "Taints:",
    (node.spec?.taints ?? []).map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`),
  );
  text.line(0, "Unschedulable:", node.spec?.unschedulable ? "true" : "false");
  const conditions = node.status?.conditions ?? [];
  text
    .line(0, "Conditions:")
    .row(1, ["Type", "Status", "LastHeartbeatTime", "LastTransitionTime", "Reason", "Message"]);
  text.row(1, ["----", "------", "-----------------", "------------------", "------", "-------"]);
  for (const c of conditions) {
    text.row(1, [
      c.type,
      c.status,
      describeTime(c.lastHeartbeatTime),
      describeTime(c.lastTransitionTime),
      c.reason ?? "",
      c.message ?? "",
    ]);
  }
  text.line(0, "Addresses:");
  for (const address of node.status?.addresses ?? []) text.line(1, `${address.type}:`, address.address);
  text.line(0, "System Info:").line(1, "Kubelet Version:", node.status?.nodeInfo?.kubeletVersion ?? "", true);
  text.list(
    0,
    "Volumes Attached:",
    (node.status?.volumesAttached ?? []).map((v) => v.name),
  );
  text.list(0, "Volumes In Use:", node.status?.volumesInUse ?? []);
  const pods = await listPods(context, "", `spec.nodeName=${name}`);
  const running = pods.filter((p) => p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed");
  text.line(0, "Non-terminated Pods:", `(${running.length} in total)`);
  if (running.length > 0) {
    text.row(1, ["Namespace", "Name"]).row(1, ["---------", "----"]);
    for (const pod of running) text.row(1, [pod.metadata?.namespace ?? "", pod.metadata?.name ?? ""]);
  }
  const byUid = await searchEvents(context, involvedObjectOf("Node", node));
  const byName = await searchEvents(context, { kind: "Node", name, namespace: "", uid: name });
  text.events(unique([...byUid, ...byName]), context.nowMs);
  return text.toString();
}
