/**
 * What changed in the volume components' hidden state between two reads of their debug states, as
 * timeline entries: a volume entering or leaving a desired state, a mount or attachment appearing
 * in an actual state, an operation starting, failing into backoff (with its "no retries permitted
 * until") or ending. The simulator diffs after every step; the web UI diffs each poll of a live
 * cluster. Pure, deterministic (entries in a fixed order), and free of Node APIs for the browser.
 */
import { parseRfc3339 } from "../../runtime/clock.ts";
import type {
  AttachDetachControllerDebugState,
  KubeletVolumeManagerDebugState,
  OperationDebugState,
  PersistentVolumeControllerDebugState,
} from "./debug-state.ts";
import type { Lane, LaneEntry } from "./lanes.ts";

/** The debug states of the cluster's volume components at one moment (a component not read is absent). */
export interface ComponentStates {
  kubelets: Record<string, KubeletVolumeManagerDebugState>;
  attachDetach?: AttachDetachControllerDebugState;
  persistentVolume?: PersistentVolumeControllerDebugState;
}

export const noComponentStates: ComponentStates = { kubelets: {} };

/** A volume's name as the graph names pvs: the unique name's last part (`kubernetes.io/csi/driver^handle` → handle). */
function shortVolume(volumeName: string): string {
  return volumeName.split(/[/^]/).at(-1) ?? volumeName;
}

function keyed<T>(items: readonly T[], key: (item: T) => string): Map<string, T> {
  return new Map(items.map((item) => [key(item), item]));
}

/** Calls `added` and `removed` for keys in one map and not the other, in a stable order. */
function diffKeys<T>(
  before: ReadonlyMap<string, T>,
  after: ReadonlyMap<string, T>,
  added: (item: T) => void,
  removed: (item: T) => void,
): void {
  for (const [key, item] of after) if (!before.has(key)) added(item);
  for (const [key, item] of before) if (!after.has(key)) removed(item);
}

function timeOr(text: string | undefined, fallbackMs: number): number {
  if (text === undefined || text === "") return fallbackMs;
  const ms = parseRfc3339(text);
  return Number.isNaN(ms) ? fallbackMs : ms;
}

function operationKey(operation: OperationDebugState): string {
  return `${operation.operationName}|${operation.volumeName}|${operation.podName}|${operation.nodeName}`;
}

function operationSubject(operation: OperationDebugState): string {
  const volume = operation.volumeName === "" ? "" : ` of volume ${shortVolume(operation.volumeName)}`;
  const node = operation.nodeName === "" ? "" : ` on ${operation.nodeName}`;
  return `${operation.operationName}${volume}${node}`;
}

function operationRelated(operation: OperationDebugState): string[] {
  return [shortVolume(operation.volumeName), operation.nodeName, operation.podName].filter((name) => name !== "");
}

/** Operations that started, failed (again) into backoff, or ended. */
function operationChanges(
  lane: Lane,
  object: string,
  before: readonly OperationDebugState[],
  after: readonly OperationDebugState[],
  atMs: number,
): LaneEntry[] {
  const entries: LaneEntry[] = [];
  const old = keyed(before, operationKey);
  for (const operation of after) {
    const previous = old.get(operationKey(operation));
    const related = operationRelated(operation);
    if (operation.running && previous?.running !== true) {
      entries.push({
        atMs,
        lane,
        kind: "operation",
        object,
        message: `${operationSubject(operation)} started`,
        related,
      });
    }
    const failedAgain = operation.lastErrorTime !== undefined && operation.lastErrorTime !== previous?.lastErrorTime;
    if (failedAgain) {
      const untilMs = timeOr(operation.noRetriesPermittedUntil, atMs);
      const wait =
        operation.durationBeforeRetry === undefined ? "" : ` (durationBeforeRetry ${operation.durationBeforeRetry})`;
      entries.push({
        atMs: timeOr(operation.lastErrorTime, atMs),
        untilMs,
        lane,
        kind: "backoff",
        object,
        message: `${operationSubject(operation)} failed: ${operation.lastError ?? ""}; no retries permitted until ${operation.noRetriesPermittedUntil ?? "now"}${wait}`,
        related,
      });
    }
  }
  const now = keyed(after, operationKey);
  for (const [key, operation] of old) {
    if (!now.has(key)) {
      entries.push({
        atMs,
        lane,
        kind: "operation",
        object,
        message: `${operationSubject(operation)} ended`,
        related: operationRelated(operation),
      });
    }
  }
  return entries;
}

function kubeletChanges(
  node: string,
  before: KubeletVolumeManagerDebugState | undefined,
  after: KubeletVolumeManagerDebugState | undefined,
  atMs: number,
): LaneEntry[] {
  const object = `node ${node}`;
  const entries: LaneEntry[] = [];
  const state = (lane: Lane, message: string, related: string[]) =>
    entries.push({ atMs, lane, kind: "state", object, message, related });
  const desiredKey = (volume: string, pod: { podUID: string }) => `${volume}|${pod.podUID}`;
  const desired = (debug: KubeletVolumeManagerDebugState | undefined) =>
    new Map(
      (debug?.desiredStateOfWorld ?? []).flatMap((volume) =>
        volume.pods.map((pod) => [desiredKey(volume.volumeName, pod), { volume: volume.volumeName, pod }] as const),
      ),
    );
  diffKeys(
    desired(before),
    desired(after),
    ({ volume, pod }) =>
      state("kubelet", `desired: volume ${shortVolume(volume)} for pod ${pod.namespace}/${pod.name}`, [
        shortVolume(volume),
        `${pod.namespace}/${pod.name}`,
        pod.podUID,
      ]),
    ({ volume, pod }) =>
      state("kubelet", `desired: volume ${shortVolume(volume)} no longer wanted by pod ${pod.namespace}/${pod.name}`, [
        shortVolume(volume),
        `${pod.namespace}/${pod.name}`,
        pod.podUID,
      ]),
  );
  const devices = (debug: KubeletVolumeManagerDebugState | undefined) =>
    keyed(debug?.actualStateOfWorld ?? [], (volume) => `${volume.volumeName}|${volume.deviceMountState}`);
  diffKeys(
    devices(before),
    devices(after),
    (volume) =>
      state(
        "kernel",
        `actual: ${shortVolume(volume.volumeName)} ${volume.deviceMountState}${volume.deviceMountPath === "" ? "" : ` at ${volume.deviceMountPath}`}`,
        [shortVolume(volume.volumeName)],
      ),
    () => undefined,
  );
  const podMounts = (debug: KubeletVolumeManagerDebugState | undefined) =>
    new Map(
      (debug?.actualStateOfWorld ?? []).flatMap((volume) =>
        volume.pods.map(
          (pod) =>
            [`${volume.volumeName}|${pod.podUID}|${pod.volumeMountState}`, { volume: volume.volumeName, pod }] as const,
        ),
      ),
    );
  diffKeys(
    podMounts(before),
    podMounts(after),
    ({ volume, pod }) =>
      state("kernel", `actual: ${shortVolume(volume)} ${pod.volumeMountState} for pod ${pod.podUID}`, [
        shortVolume(volume),
        pod.podUID,
      ]),
    ({ volume, pod }) =>
      state("kernel", `actual: ${shortVolume(volume)} unmounted for pod ${pod.podUID}`, [
        shortVolume(volume),
        pod.podUID,
      ]),
  );
  entries.push(...operationChanges("kubelet", object, before?.operations ?? [], after?.operations ?? [], atMs));
  return entries;
}

function attachDetachChanges(
  before: AttachDetachControllerDebugState | undefined,
  after: AttachDetachControllerDebugState | undefined,
  atMs: number,
): LaneEntry[] {
  const entries: LaneEntry[] = [];
  const state = (message: string, related: string[]) =>
    entries.push({ atMs, lane: "attachdetach", kind: "state", object: `pv ${related[0] ?? ""}`, message, related });
  const desired = (debug: AttachDetachControllerDebugState | undefined) =>
    keyed(
      debug?.desiredStateOfWorld ?? [],
      (volume) => `${volume.volumeName}|${volume.nodeName}|${volume.multiAttachErrorReported}`,
    );
  diffKeys(
    desired(before),
    desired(after),
    (volume) => {
      const pods = volume.pods.map((pod) => `${pod.namespace}/${pod.name}`);
      const multi = volume.multiAttachErrorReported ? " (Multi-Attach reported)" : "";
      state(`desired: ${shortVolume(volume.volumeName)} attached to ${volume.nodeName}${multi}`, [
        shortVolume(volume.volumeName),
        volume.nodeName,
        ...pods,
      ]);
    },
    () => undefined,
  );
  const actual = (debug: AttachDetachControllerDebugState | undefined) =>
    keyed(
      debug?.actualStateOfWorld ?? [],
      (volume) =>
        `${volume.volumeName}|${volume.nodeName}|${volume.attachState}|${volume.mountedByNode}|${volume.forceDetachTime ?? ""}`,
    );
  const attachedTo = (debug: AttachDetachControllerDebugState | undefined) =>
    keyed(debug?.actualStateOfWorld ?? [], (volume) => `${volume.volumeName}|${volume.nodeName}`);
  diffKeys(
    actual(before),
    actual(after),
    (volume) => {
      const mounted = volume.mountedByNode ? ", in use by the node" : "";
      const force =
        volume.forceDetachTime === undefined ? "" : `, force-detach at ${volume.forceDetachTime.slice(11, 19)}`;
      state(`actual: ${shortVolume(volume.volumeName)} ${volume.attachState} on ${volume.nodeName}${mounted}${force}`, [
        shortVolume(volume.volumeName),
        volume.nodeName,
      ]);
    },
    () => undefined,
  );
  diffKeys(
    attachedTo(before),
    attachedTo(after),
    () => undefined,
    (volume) =>
      state(`actual: ${shortVolume(volume.volumeName)} detached from ${volume.nodeName}`, [
        shortVolume(volume.volumeName),
        volume.nodeName,
      ]),
  );
  entries.push(
    ...operationChanges(
      "attachdetach",
      "attachdetach-controller",
      before?.operations ?? [],
      after?.operations ?? [],
      atMs,
    ),
  );
  return entries;
}

function persistentVolumeChanges(
  before: PersistentVolumeControllerDebugState | undefined,
  after: PersistentVolumeControllerDebugState | undefined,
  atMs: number,
): LaneEntry[] {
  const entries: LaneEntry[] = [];
  const claims = (debug: PersistentVolumeControllerDebugState | undefined) =>
    keyed(debug?.pendingClaims ?? [], (claim) => claim.uid);
  diffKeys(
    claims(before),
    claims(after),
    (claim) =>
      entries.push({
        atMs,
        lane: "pv-controller",
        kind: "state",
        object: `pvc ${claim.namespace}/${claim.name}`,
        message: `pending claim ${claim.namespace}/${claim.name}${claim.storageClassName === "" ? "" : ` (class ${claim.storageClassName})`}`,
      }),
    (claim) =>
      entries.push({
        atMs,
        lane: "pv-controller",
        kind: "state",
        object: `pvc ${claim.namespace}/${claim.name}`,
        message: `claim ${claim.namespace}/${claim.name} no longer pending`,
      }),
  );
  const operations = (debug: PersistentVolumeControllerDebugState | undefined) => [
    ...(debug?.operations ?? []),
    ...(debug?.pendingClaims ?? []).flatMap((claim) => claim.operations),
  ];
  const unique = (list: OperationDebugState[]) => [...keyed(list, operationKey).values()];
  entries.push(
    ...operationChanges(
      "pv-controller",
      "persistentvolume-controller",
      unique(operations(before)),
      unique(operations(after)),
      atMs,
    ),
  );
  return entries;
}

/** The timeline entries for what changed from `before` to `after`, read at `atMs` (cluster clock). */
export function stateChanges(before: ComponentStates, after: ComponentStates, atMs: number): LaneEntry[] {
  const nodes = [...new Set([...Object.keys(before.kubelets), ...Object.keys(after.kubelets)])].sort();
  return [
    ...nodes.flatMap((node) => kubeletChanges(node, before.kubelets[node], after.kubelets[node], atMs)),
    ...attachDetachChanges(before.attachDetach, after.attachDetach, atMs),
    ...persistentVolumeChanges(before.persistentVolume, after.persistentVolume, atMs),
  ];
}
