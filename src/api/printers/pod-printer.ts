/**
 * The pod columns of `kubectl get pods`, computed as Kubernetes' printPod does: READY counts ready
 * containers (sidecars included), STATUS is the most telling reason (an init step, a waiting or
 * terminated container's reason, Terminating), RESTARTS adds when the last restart was.
 */
import type { Container, ContainerStatus, PodCondition } from "kubernetes-types/core/v1.js";
import { parseRfc3339 } from "../../runtime/clock.ts";
import type { Pod } from "../objects.ts";
import { ageSince, humanDuration } from "./human-duration.ts";
import {
  ageColumn,
  column,
  nameColumn,
  noneText,
  type ObjectPrinter,
  type PrintedRow,
  type TableRowCondition,
} from "./table-types.ts";

/** The reason the node lifecycle controller gives a pod on an unreachable node. */
const nodeUnreachablePodReason = "NodeLost";

const succeededConditions: TableRowCondition[] = [
  { type: "Completed", status: "True", reason: "Succeeded", message: "The pod has completed successfully." },
];
const failedConditions: TableRowCondition[] = [
  { type: "Completed", status: "True", reason: "Failed", message: "The pod failed." },
];

const columns = [
  nameColumn,
  column("Ready", "The aggregate readiness state of this pod for accepting traffic."),
  column("Status", "The aggregate status of the containers in this pod."),
  column(
    "Restarts",
    "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
  ),
  ageColumn,
  column("IP", "The IP address assigned to the pod", { priority: 1 }),
  column("Node", "The name of the node this pod is scheduled on", { priority: 1 }),
  column("Nominated Node", "The node the scheduler nominated for this pod when preempting others", { priority: 1 }),
  column("Readiness Gates", "The readiness gates of this pod that are true, of all of them", { priority: 1 }),
];

/** Counts restarts and remembers the newest time a container last stopped. */
class RestartTally {
  count = 0;
  lastMs = Number.NEGATIVE_INFINITY;

  add(status: ContainerStatus): void {
    this.count += status.restartCount ?? 0;
    const finishedAt = status.lastState?.terminated?.finishedAt;
    if (finishedAt !== undefined) this.lastMs = Math.max(this.lastMs, parseRfc3339(finishedAt));
  }

  text(nowMs: number): string {
    if (this.count === 0 || !Number.isFinite(this.lastMs)) return String(this.count);
    return `${this.count} (${humanDuration(nowMs - this.lastMs)} ago)`;
  }
}

function isSidecar(container: Container | undefined): boolean {
  return container?.restartPolicy === "Always";
}

function conditionIsTrue(conditions: readonly PodCondition[] | undefined, type: string): boolean {
  return (conditions ?? []).some((condition) => condition.type === type && condition.status === "True");
}

interface PodTally {
  reason: string;
  ready: number;
  restarts: RestartTally;
}

/** Walks the init containers; true when the pod is still initializing (the reason then says where). */
function tallyInitContainers(pod: Pod, tally: PodTally, sidecarRestarts: RestartTally): boolean {
  const specs = new Map((pod.spec?.initContainers ?? []).map((c) => [c.name, c]));
  const statuses = pod.status?.initContainerStatuses ?? [];
  for (const [index, status] of statuses.entries()) {
    tally.restarts.add(status);
    const sidecar = isSidecar(specs.get(status.name));
    if (sidecar) sidecarRestarts.add(status);
    const terminated = status.state?.terminated;
    const waitingReason = status.state?.waiting?.reason ?? "";
    if (terminated !== undefined && terminated.exitCode === 0) continue;
    if (sidecar && status.started === true) {
      if (status.ready) tally.ready++;
      continue;
    }
    if (terminated !== undefined) {
      if (terminated.reason) tally.reason = `Init:${terminated.reason}`;
      else if (terminated.signal) tally.reason = `Init:Signal:${terminated.signal}`;
      else tally.reason = `Init:ExitCode:${terminated.exitCode}`;
    } else if (waitingReason !== "" && waitingReason !== "PodInitializing") {
      tally.reason = `Init:${waitingReason}`;
    } else {
      tally.reason = `Init:${index}/${specs.size}`;
    }
    return true;
  }
  return false;
}

/** Walks the app containers from last to first, as Kubernetes does, so the first container's reason wins. */
function tallyContainers(pod: Pod, tally: PodTally): void {
  const statuses = pod.status?.containerStatuses ?? [];
  let hasRunning = false;
  for (let i = statuses.length - 1; i >= 0; i--) {
    const status = statuses[i] as ContainerStatus;
    tally.restarts.add(status);
    const waiting = status.state?.waiting;
    const terminated = status.state?.terminated;
    if (waiting?.reason) tally.reason = waiting.reason;
    else if (terminated?.reason) tally.reason = terminated.reason;
    else if (terminated !== undefined) {
      tally.reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode}`;
    } else if (status.ready && status.state?.running !== undefined) {
      hasRunning = true;
      tally.ready++;
    }
  }
  // A pod whose other container still runs is not Completed.
  if (tally.reason === "Completed" && hasRunning) {
    tally.reason = conditionIsTrue(pod.status?.conditions, "Ready") ? "Running" : "NotReady";
  }
}

function initialReason(pod: Pod): string {
  const gated = (pod.status?.conditions ?? []).some((c) => c.type === "PodScheduled" && c.reason === "SchedulingGated");
  if (gated) return "SchedulingGated";
  return pod.status?.reason || pod.status?.phase || "";
}

function finalReason(pod: Pod, reason: string): string {
  if (pod.metadata?.deletionTimestamp === undefined) return reason;
  if (pod.status?.reason === nodeUnreachablePodReason) return "Unknown";
  const phase = pod.status?.phase;
  return phase === "Succeeded" || phase === "Failed" ? reason : "Terminating";
}

/** The STATUS column of a pod, as kubectl shows it (`Running`, `ContainerCreating`, `Init:0/1`, `Terminating`). */
export function podStatusText(pod: Pod): string {
  return podTally(pod).reason;
}

function podTally(pod: Pod): PodTally {
  const tally: PodTally = { reason: initialReason(pod), ready: 0, restarts: new RestartTally() };
  const sidecarRestarts = new RestartTally();
  const initializing = tallyInitContainers(pod, tally, sidecarRestarts);
  if (!initializing || conditionIsTrue(pod.status?.conditions, "Initialized")) {
    // Once initialized, only sidecars' restarts count among the init containers'.
    tally.restarts = sidecarRestarts;
    tallyContainers(pod, tally);
  }
  tally.reason = finalReason(pod, tally.reason);
  return tally;
}

function readinessGatesText(pod: Pod): string {
  const gates = pod.spec?.readinessGates ?? [];
  if (gates.length === 0) return noneText;
  const conditions = pod.status?.conditions ?? [];
  const trueGates = gates.filter((gate) =>
    conditions.some((c) => c.type === gate.conditionType && c.status === "True"),
  ).length;
  return `${trueGates}/${gates.length}`;
}

function containerCount(pod: Pod): number {
  const sidecars = (pod.spec?.initContainers ?? []).filter(isSidecar).length;
  return (pod.spec?.containers ?? []).length + sidecars;
}

function rowConditions(pod: Pod): TableRowCondition[] | undefined {
  if (pod.status?.phase === "Succeeded") return succeededConditions;
  if (pod.status?.phase === "Failed") return failedConditions;
  return undefined;
}

export const podPrinter: ObjectPrinter<Pod> = {
  columns,
  row(pod, nowMs): PrintedRow {
    const tally = podTally(pod);
    const podIp = pod.status?.podIPs?.[0]?.ip || pod.status?.podIP || noneText;
    const conditions = rowConditions(pod);
    return {
      cells: [
        pod.metadata?.name ?? "",
        `${tally.ready}/${containerCount(pod)}`,
        tally.reason,
        tally.restarts.text(nowMs),
        ageSince(pod.metadata?.creationTimestamp, nowMs),
        podIp,
        pod.spec?.nodeName || noneText,
        pod.status?.nominatedNodeName || noneText,
        readinessGatesText(pod),
      ],
      ...(conditions === undefined ? {} : { conditions }),
    };
  },
};
