/**
 * The pod status the kubelet reports (kubelet_pods.go generateAPIPodStatus / getPhase and
 * status/generate.go), computed from what the runtime knows of each container. Only the fields the
 * kubelet owns are produced; the status manager merges them into the stored status, keeping other
 * components' conditions (PodScheduled, DisruptionTarget).
 */
import { createHash } from "node:crypto";
import type {
  ContainerState,
  ContainerStateTerminated,
  ContainerStatus,
  Pod,
  PodCondition,
} from "kubernetes-types/core/v1.js";
import { formatRfc3339 } from "../../runtime/clock.ts";
import type { ContainerInstance } from "../container/sim-container-runtime.ts";

/** Why a container that is not running waits (ContainerCreating, CrashLoopBackOff, CreateContainerError). */
export interface ContainerWaiting {
  reason: string;
  message?: string;
}

/** What the kubelet knows of one container of the pod. */
export interface ContainerView {
  current?: ContainerInstance;
  /** The readiness result of the current instance while it runs (false until a readiness probe succeeded). */
  ready?: boolean;
  previous?: ContainerInstance;
  /** Set while the container is not running and is expected to (re)start. */
  waiting?: ContainerWaiting;
}

interface PodStatusInput {
  pod: Pod;
  /** By container name; containers without an entry have not been created yet. */
  containers: ReadonlyMap<string, ContainerView>;
  /** The pod's containers will not run again (it is being deleted, or has finished). */
  podIsTerminal: boolean;
  hostIP: string;
  nowMs: number;
}

/** Condition types the kubelet owns; the status manager replaces exactly these. */
export const kubeletConditionTypes: ReadonlySet<string> = new Set(["Initialized", "ContainersReady", "Ready"]);

const containerCreating: ContainerWaiting = { reason: "ContainerCreating" };

/**
 * The imageID of each image name seen: every status of every running container carries one, so a
 * digest hashed on each status (a sha256 per container per sync) and kept as a concatenation (a
 * rope over a copy of the hex digest, per pod) is computed once and shared as one flat string.
 */
const imageIds = new Map<string, string>();
/** Distinct image names remembered; a node running more starts the table afresh (a cache, not a record). */
const imageIdsMaxEntries = 256;

/** A stable image digest for an image name, as `imageID` shows it. */
function imageId(image: string): string {
  let id = imageIds.get(image);
  if (id === undefined) {
    id = [image, "@sha256:", createHash("sha256").update(image).digest("hex")].join("");
    if (imageIds.size >= imageIdsMaxEntries) imageIds.clear();
    imageIds.set(image, id);
  }
  return id;
}

function terminatedState(instance: ContainerInstance): ContainerStateTerminated {
  return {
    exitCode: instance.exitCode ?? 0,
    reason: instance.reason ?? "Completed",
    startedAt: formatRfc3339(instance.startedAtMs),
    finishedAt: formatRfc3339(instance.finishedAtMs ?? instance.startedAtMs),
    containerID: instance.id,
  };
}

function stateOf(instance: ContainerInstance): ContainerState {
  if (instance.state === "running") return { running: { startedAt: formatRfc3339(instance.startedAtMs) } };
  return { terminated: terminatedState(instance) };
}

function containerStatus(name: string, image: string, view: ContainerView | undefined): ContainerStatus {
  const current = view?.current;
  const waiting = view?.waiting ?? (current === undefined ? containerCreating : undefined);
  const status: ContainerStatus = {
    name,
    image,
    imageID: current === undefined ? "" : imageId(image),
    ready: false,
    restartCount: current?.attempt ?? 0,
    started: false,
    state: {},
    lastState: {},
  };
  if (waiting !== undefined) {
    status.state = { waiting: { ...waiting } };
    if (current?.state === "exited") status.lastState = { terminated: terminatedState(current) };
    else if (view?.previous !== undefined) status.lastState = stateOf(view.previous);
    if (current !== undefined) status.containerID = current.id;
    return status;
  }
  if (current === undefined) return status;
  status.containerID = current.id;
  status.state = stateOf(current);
  status.ready = current.state === "running" && view?.ready !== false;
  status.started = current.state === "running";
  if (view?.previous !== undefined) status.lastState = { terminated: terminatedState(view.previous) };
  return status;
}

/** getPhase (kubelet_pods.go), for pods without init containers. */
export function podPhase(pod: Pod, statuses: readonly ContainerStatus[], podIsTerminal: boolean): string {
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const status of statuses) {
    if (status.state?.running !== undefined) running++;
    else if (status.state?.terminated !== undefined) {
      stopped++;
      if (status.state.terminated.exitCode === 0) succeeded++;
    } else if (status.lastState?.terminated !== undefined) stopped++;
    else waiting++;
  }
  if (waiting > 0) return podIsTerminal ? "Failed" : "Pending";
  if (running > 0) return "Running";
  if (stopped === 0) return "Pending";
  if (podIsTerminal) return stopped === succeeded ? "Succeeded" : "Failed";
  const restartPolicy = pod.spec?.restartPolicy ?? "Always";
  if (restartPolicy === "Always") return "Running";
  if (stopped === succeeded) return "Succeeded";
  return restartPolicy === "Never" ? "Failed" : "Running";
}

/**
 * The ContainersNotReady message of each list of unready containers seen: every pod of a workload
 * repeats the same one (`containers with unready status: [app]`), in two conditions of each status
 * the kubelet writes, and each was a concatenation of its own, kept in the stored versions.
 */
const unreadyMessages = new Map<string, string>();
/** Distinct unready-container lists remembered; past that the table starts afresh (a cache, not a record). */
const unreadyMessagesMaxEntries = 256;

function unreadyMessage(unreadyNames: string): string {
  let message = unreadyMessages.get(unreadyNames);
  if (message === undefined) {
    message = ["containers with unready status: [", unreadyNames, "]"].join("");
    if (unreadyMessages.size >= unreadyMessagesMaxEntries) unreadyMessages.clear();
    unreadyMessages.set(unreadyNames, message);
  }
  return message;
}

function readinessConditions(
  statuses: readonly ContainerStatus[],
  phase: string,
): Omit<PodCondition, "lastTransitionTime">[] {
  const finished = phase === "Succeeded" || phase === "Failed";
  const unready = statuses.filter((status) => !status.ready).map((status) => status.name);
  const ready = !finished && unready.length === 0;
  const notReady = finished
    ? { reason: "PodCompleted" }
    : { reason: "ContainersNotReady", message: unreadyMessage(unready.join(" ")) };
  const readiness = (type: string): Omit<PodCondition, "lastTransitionTime"> =>
    ready ? { type, status: "True" } : { type, status: "False", ...notReady };
  const initialized: Omit<PodCondition, "lastTransitionTime"> =
    phase === "Succeeded"
      ? { type: "Initialized", status: "True", reason: "PodCompleted" }
      : { type: "Initialized", status: "True" };
  return [initialized, readiness("ContainersReady"), readiness("Ready")];
}

/** The kubelet-owned part of the pod's status; conditions come without lastTransitionTime. */
export interface GeneratedPodStatus {
  phase: string;
  conditions: Omit<PodCondition, "lastTransitionTime">[];
  containerStatuses: ContainerStatus[];
  hostIP: string;
  startTime: string;
}

export function generatePodStatus(input: PodStatusInput): GeneratedPodStatus {
  const { pod, containers, podIsTerminal, nowMs } = input;
  const containerStatuses = (pod.spec?.containers ?? []).map((container) =>
    containerStatus(container.name, container.image ?? "", containers.get(container.name)),
  );
  const previousPhase = pod.status?.phase;
  const computed = podPhase(pod, containerStatuses, podIsTerminal);
  // A pod that reached a terminal phase never leaves it (kubelet keeps the old terminal phase).
  const phase = previousPhase === "Succeeded" || previousPhase === "Failed" ? previousPhase : computed;
  return {
    phase,
    conditions: readinessConditions(containerStatuses, phase),
    containerStatuses,
    hostIP: input.hostIP,
    startTime: pod.status?.startTime ?? formatRfc3339(nowMs),
  };
}
