/**
 * `kvol describe pod`: kubectl's layout — identity, node, status, owner, each container's state
 * and mounts, conditions, volumes with their sources, tolerations, and the pod's events.
 */
import type { Container, ContainerState, ContainerStatus, Volume } from "kubernetes-types/core/v1.js";
import type { Pod } from "../../api/objects.ts";
import { ageSince } from "../../api/printers/human-duration.ts";
import { DescribeText, describeTime } from "../client/describe-text.ts";
import { type DescribeContext, involvedObjectOf, searchEvents } from "./describe-context.ts";
import { volumeSourceLines } from "./volume-source-lines.ts";

function stateLines(text: DescribeText, label: string, state: ContainerState | undefined): void {
  if (state?.running !== undefined) {
    text.line(2, `${label}:`, "Running").line(3, "Started:", describeTime(state.running.startedAt));
  } else if (state?.waiting !== undefined) {
    text.line(2, `${label}:`, "Waiting");
    if (state.waiting.reason) text.line(3, "Reason:", state.waiting.reason);
  } else if (state?.terminated !== undefined) {
    const t = state.terminated;
    text.line(2, `${label}:`, "Terminated");
    if (t.reason) text.line(3, "Reason:", t.reason);
    text.line(3, "Exit Code:", t.exitCode);
    text.line(3, "Started:", describeTime(t.startedAt)).line(3, "Finished:", describeTime(t.finishedAt));
  } else if (label === "State") text.line(2, `${label}:`, "Waiting");
}

function containerLines(text: DescribeText, container: Container, status: ContainerStatus | undefined): void {
  text.line(1, `${container.name}:`);
  text.line(2, "Container ID:", status?.containerID ?? "", true);
  text.line(2, "Image:", container.image ?? "", true);
  stateLines(text, "State", status?.state);
  if (status?.lastState !== undefined && Object.keys(status.lastState).length > 0) {
    stateLines(text, "Last State", status.lastState);
  }
  text.line(2, "Ready:", status?.ready ? "True" : "False");
  text.line(2, "Restart Count:", status?.restartCount ?? 0);
  const mounts = (container.volumeMounts ?? []).map(
    (m) => `${m.mountPath} from ${m.name} (${m.readOnly ? "ro" : "rw"}${m.subPath ? `,path="${m.subPath}"` : ""})`,
  );
  const devices = (container.volumeDevices ?? []).map((d) => `${d.devicePath} from ${d.name}`);
  if (devices.length > 0) text.line(2, "Devices:").list(3, "", devices);
  if (mounts.length === 0) text.line(2, "Mounts:", "<none>");
  else {
    text.line(2, "Mounts:");
    for (const mount of mounts) text.line(3, mount);
  }
}

function volumeLines(text: DescribeText, volumes: readonly Volume[]): void {
  if (volumes.length === 0) {
    text.line(0, "Volumes:", "<none>");
    return;
  }
  text.line(0, "Volumes:");
  for (const volume of volumes) {
    text.line(1, `${volume.name}:`);
    for (const [label, value] of volumeSourceLines(volume)) text.line(2, label, value, true);
  }
}

function statusLines(text: DescribeText, pod: Pod, nowMs: number): void {
  const deletedAt = pod.metadata?.deletionTimestamp;
  const phase = pod.status?.phase ?? "";
  if (deletedAt === undefined || phase === "Failed" || phase === "Succeeded") {
    text.line(0, "Status:", phase);
    return;
  }
  text.line(0, "Status:", `Terminating (lasts ${ageSince(deletedAt, nowMs)})`);
  text.line(0, "Termination Grace Period:", `${pod.metadata?.deletionGracePeriodSeconds ?? 0}s`);
}

export async function describePod(context: DescribeContext, pod: Pod): Promise<string> {
  const text = new DescribeText();
  const meta = pod.metadata ?? {};
  text.line(0, "Name:", meta.name ?? "").line(0, "Namespace:", meta.namespace ?? "");
  text.line(0, "Priority:", pod.spec?.priority ?? 0);
  text.line(0, "Service Account:", pod.spec?.serviceAccountName ?? "");
  const node = pod.spec?.nodeName
    ? `${pod.spec.nodeName}${pod.status?.hostIP ? `/${pod.status.hostIP}` : ""}`
    : "<none>";
  text.line(0, "Node:", node);
  if (pod.status?.startTime) text.line(0, "Start Time:", describeTime(pod.status.startTime));
  text.map(0, "Labels:", meta.labels).map(0, "Annotations:", meta.annotations);
  statusLines(text, pod, context.nowMs);
  if (pod.status?.reason) text.line(0, "Reason:", pod.status.reason);
  if (pod.status?.message) text.line(0, "Message:", pod.status.message);
  text.line(0, "IP:", pod.status?.podIP ?? "", true);
  const owner = meta.ownerReferences?.find((ref) => ref.controller);
  if (owner !== undefined) text.line(0, "Controlled By:", `${owner.kind}/${owner.name}`);
  const statuses = new Map((pod.status?.containerStatuses ?? []).map((s) => [s.name, s]));
  const initStatuses = new Map((pod.status?.initContainerStatuses ?? []).map((s) => [s.name, s]));
  if ((pod.spec?.initContainers ?? []).length > 0) {
    text.line(0, "Init Containers:");
    for (const c of pod.spec?.initContainers ?? []) containerLines(text, c, initStatuses.get(c.name));
  }
  text.line(0, "Containers:");
  for (const c of pod.spec?.containers ?? []) containerLines(text, c, statuses.get(c.name));
  const conditions = pod.status?.conditions ?? [];
  if (conditions.length > 0) {
    text.line(0, "Conditions:").row(1, ["Type", "Status"]);
    for (const condition of conditions) text.row(1, [condition.type, condition.status]);
  }
  volumeLines(text, pod.spec?.volumes ?? []);
  text.map(0, "Node-Selectors:", pod.spec?.nodeSelector);
  const tolerations = (pod.spec?.tolerations ?? []).map(
    (t) =>
      `${t.key ?? ""}${t.value ? `=${t.value}` : ""}:${t.effect ?? ""}${t.operator === "Exists" ? " op=Exists" : ""}${t.tolerationSeconds === undefined ? "" : ` for ${t.tolerationSeconds}s`}`,
  );
  text.list(0, "Tolerations:", tolerations);
  text.events(await searchEvents(context, involvedObjectOf("Pod", pod)), context.nowMs);
  return text.toString();
}
