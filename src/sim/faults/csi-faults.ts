/**
 * Faults of CSI drivers: a node plugin restarting, and calls of a bundled driver (mock.csi.kvol.io
 * unless `driver` names another) failing, answering DeadlineExceeded, or taking long, through the
 * per-RPC hooks of its instances (`common/call-hooks.ts`). The driver's controller runs inside the
 * instance on the first kubelet node, so a hook on a Controller RPC acts there; without `node`, a
 * hook is set on every node's instance.
 */

import type { Cluster } from "../../cmd/cluster.ts";
import type { CsiCallFault, CsiCallHooks, CsiRpcMethod } from "../../csi/drivers/common/call-hooks.ts";
import { mockDriverName } from "../../csi/drivers/common/constants.ts";
import { type CsiStatusName, grpcStatusCodeByName } from "../../csi/grpc/errors.ts";
import { allCsiRpcs } from "../../csi/grpc/rpcs.ts";
import { letAftermathRun } from "./aftermath.ts";
import type { FaultDefinition, FaultParam, FaultParams } from "./fault.ts";
import { FaultArgs } from "./fault-args.ts";
import { kubeletHost, runningKubeletHost, runningKubeletNodes } from "./fault-targets.ts";
import { csiTimeout, externalAttacherTimeout, operationBackoffCap } from "./reaction-timings.ts";

export const csiNodePluginRestart: FaultDefinition = {
  name: "csi-node-plugin-restart",
  models:
    "A CSI driver's node plugin container restarts (DaemonSet rollout, OOM kill, crash): everything running inside " +
    "it dies, FUSE daemons included, while the kernel mounts they served stay (seed 003).",
  kubernetesReaction:
    "For a FUSE driver each of its mounts now fails with ENOTCONN, `Transport endpoint is not connected`; the kubelet " +
    "does not notice (no periodic mount health check), containers get I/O errors, and new pods of the same volume on " +
    "the node publish from the dead staging mount. Drivers that remount on start (ceph-csi, cubefs) and kvol's " +
    "fuse.csi.kvol.io (unless `reestablishOnStart: false`) bring the mounts back. Other drivers lose only calls in " +
    "flight, which the kubelet retries; the registration socket is untouched, so the driver stays registered.",
  params: [
    { name: "node", type: "string", required: true, description: "The node whose plugin restarts." },
    { name: "driver", type: "string", required: true, description: "The CSI driver's name (`fuse.csi.kvol.io`)." },
  ],
  async inject(cluster, params) {
    const args = new FaultArgs(csiNodePluginRestart, params);
    const node = args.string("node");
    const driver = args.string("driver");
    runningKubeletHost(cluster, args, node);
    const drivers = cluster.csiDrivers.driverNames();
    if (!drivers.includes(driver)) {
      throw args.error(`the cluster runs no CSI driver named "${driver}" (drivers: ${drivers.join(", ") || "none"})`);
    }
    // The plugin's processes die at once; the new container re-establishes what it can on the cluster's time.
    letAftermathRun(cluster, `restarting ${driver} on ${node}`, cluster.restartCsiNodePlugin(node, driver));
  },
  targets: async (cluster) =>
    runningKubeletNodes(cluster).flatMap((node) =>
      cluster.csiDrivers.driverNames().map((driver) => ({ node, driver })),
    ),
};

const csiMethods: readonly string[] = allCsiRpcs().map((rpc) => rpc.method);

/** The calls random exploration disturbs: attach, detach, stage and publish, and their undoing. */
const exploredMethods: readonly CsiRpcMethod[] = [
  "ControllerPublishVolume",
  "ControllerUnpublishVolume",
  "NodeStageVolume",
  "NodeUnstageVolume",
  "NodePublishVolume",
  "NodeUnpublishVolume",
];

const hookTargetParams: readonly FaultParam[] = [
  {
    name: "driver",
    type: "string",
    required: false,
    default: mockDriverName,
    description: "The bundled CSI driver whose calls are affected (`disk.csi.kvol.io` on `kvol up`).",
  },
  {
    name: "node",
    type: "string",
    required: false,
    description: "Only the driver instance on this node (every node's when left out).",
  },
  {
    name: "volume",
    type: "string",
    required: false,
    description: "Only calls about this volume id (the PV's `csi.volumeHandle`).",
  },
];

const timesParam: FaultParam = {
  name: "times",
  type: "number",
  required: false,
  description: "Affect this many calls on each instance, then stop; every call until healed when left out.",
};

function methodParam(fallback?: CsiRpcMethod): FaultParam {
  return {
    name: "method",
    type: "string",
    required: fallback === undefined,
    ...(fallback === undefined ? {} : { default: fallback }),
    description: "The CSI RPC by its gRPC name: `ControllerPublishVolume`, `NodeStageVolume`, `NodePublishVolume`, ….",
  };
}

/** The driver instances' hooks the fault goes on, and its scope, from checked parameters. */
interface HookPlacement {
  hooks: CsiCallHooks[];
  method: CsiRpcMethod;
  scope: Pick<CsiCallFault, "volumeId" | "times">;
}

function placeHook(cluster: Cluster, args: FaultArgs): HookPlacement {
  const method = args.string("method");
  if (!csiMethods.includes(method)) {
    throw args.error(`parameter "method": "${method}" is not a CSI RPC (RPCs: ${csiMethods.join(", ")})`);
  }
  const node = args.optionalString("node");
  if (node !== undefined) kubeletHost(cluster, args, node);
  const nodes = node === undefined ? cluster.kubeletNodeNames() : [node];
  const driver = args.string("driver");
  const running = cluster.csiDrivers.driverNames();
  if (!running.includes(driver)) {
    throw args.error(
      `parameter "driver": the cluster runs no bundled CSI driver named "${driver}" (drivers: ${running.join(", ") || "none"})`,
    );
  }
  const hooks = nodes.map((name) => cluster.csiDrivers.callHooks(name, driver));
  const volumeId = args.optionalString("volume");
  const times = args.optionalNumber("times");
  if (times !== undefined && !(Number.isSafeInteger(times) && times > 0)) {
    throw args.error(`parameter "times": ${times} is not a whole number above 0`);
  }
  return {
    hooks,
    // Checked against the RPC table above.
    method: method as CsiRpcMethod,
    scope: { ...(volumeId === undefined ? {} : { volumeId }), ...(times === undefined ? {} : { times }) },
  };
}

function clearHook(cluster: Cluster, args: FaultArgs): void {
  const { hooks, method } = placeHook(cluster, args);
  for (const hook of hooks) hook.clear(method);
}

function exploredHookTargets(cluster: Cluster, extra: FaultParams): FaultParams[] {
  if (!cluster.csiDrivers.driverNames().includes(mockDriverName) || cluster.kubeletNodeNames().length === 0) return [];
  return exploredMethods.map((method) => ({ method, ...extra }));
}

const statusNames = Object.keys(grpcStatusCodeByName).filter((name) => name !== "OK");

export const csiCallError: FaultDefinition = {
  name: "csi-call-error",
  models:
    "A CSI call of a bundled driver (mock.csi.kvol.io unless `driver` names another) fails with a gRPC status (the storage backend refusing an attach, a stage " +
    "failing on the node).",
  kubernetesReaction:
    "ControllerPublishVolume: the external-attacher writes VolumeAttachment status.attachError and retries (1 s " +
    'doubling to 5 min); the pod gets Warning FailedAttachVolume `AttachVolume.Attach failed for volume "<pv>" : ' +
    "rpc error: code = <code> desc = <message>`. NodeStageVolume / NodePublishVolume: Warning FailedMount " +
    '`MountVolume.MountDevice failed for volume "<pv>" : rpc error: …` / `MountVolume.SetUp failed …`, retried with ' +
    `backoff (500 ms doubling to ${operationBackoffCap}). Unpublish and unstage failures keep the pod Terminating ` +
    "and the volume attached. Codes DeadlineExceeded, Unavailable, Canceled, ResourceExhausted and Aborted leave the " +
    "mount Uncertain (teardown will be attempted); others are final.",
  healing: "The hook is removed: the next retry reaches the driver and succeeds.",
  params: [
    methodParam(),
    {
      name: "code",
      type: "string",
      required: false,
      default: "Internal",
      description: "The gRPC status name: `Internal`, `Unavailable`, `ResourceExhausted`, `FailedPrecondition`, ….",
    },
    { name: "message", type: "string", required: false, description: "The status message; a default names the RPC." },
    ...hookTargetParams,
    timesParam,
  ],
  async inject(cluster, params) {
    const args = new FaultArgs(csiCallError, params);
    const code = args.string("code");
    if (!statusNames.includes(code)) {
      throw args.error(`parameter "code": "${code}" is not a gRPC status (statuses: ${statusNames.join(", ")})`);
    }
    const message = args.optionalString("message");
    const { hooks, method, scope } = placeHook(cluster, args);
    // Checked against the status table above.
    const fault: CsiCallFault = {
      ...scope,
      code: code as CsiStatusName,
      ...(message === undefined ? {} : { message }),
    };
    for (const hook of hooks) hook.set(method, fault);
  },
  async heal(cluster, params) {
    clearHook(cluster, new FaultArgs(csiCallError, params));
  },
  targets: async (cluster) => exploredHookTargets(cluster, { code: "Internal" }),
};

export const csiDeadlineExceeded: FaultDefinition = {
  name: "csi-deadline-exceeded",
  models:
    "A CSI call of a bundled driver (mock.csi.kvol.io unless `driver` names another) answers DeadlineExceeded (the backend timed out, or the driver's own deadline " +
    "passed) after `after`; the operation may still complete on the backend.",
  kubernetesReaction:
    "DeadlineExceeded is not final: for NodeStageVolume / NodePublishVolume the kubelet records the mount as " +
    'Uncertain, reports Warning FailedMount `MountVolume.MountDevice failed for volume "<pv>" : rpc error: code = ' +
    "DeadlineExceeded desc = …` and retries with backoff; if the pod is deleted meanwhile, NodeUnpublish / " +
    "NodeUnstage are called for the possibly-never-completed mount. For ControllerPublishVolume the external-attacher " +
    "records the error on the VolumeAttachment and retries. A call that takes longer than the kubelet's CSI timeout " +
    `(${csiTimeout}) fails on the kubelet's side the same way (\`context deadline exceeded\`).`,
  healing: "The hook is removed: the next retry reaches the driver and succeeds.",
  params: [
    methodParam("NodeStageVolume"),
    {
      name: "after",
      type: "duration",
      required: false,
      default: 0,
      description: "How long the call runs before it answers DeadlineExceeded.",
    },
    ...hookTargetParams,
    timesParam,
  ],
  async inject(cluster, params) {
    const args = new FaultArgs(csiDeadlineExceeded, params);
    const afterMs = args.durationMs("after");
    const { hooks, method, scope } = placeHook(cluster, args);
    const fault: CsiCallFault = {
      ...scope,
      code: "DeadlineExceeded",
      message: "context deadline exceeded",
      ...(afterMs > 0 ? { delayMs: afterMs } : {}),
    };
    for (const hook of hooks) hook.set(method, fault);
  },
  async heal(cluster, params) {
    clearHook(cluster, new FaultArgs(csiDeadlineExceeded, params));
  },
  targets: async (cluster) => exploredHookTargets(cluster, {}),
};

export const csiCallSlow: FaultDefinition = {
  name: "csi-call-slow",
  models:
    "A CSI call of a bundled driver (mock.csi.kvol.io unless `driver` names another) takes `delay` before the driver answers normally (a slow backend: a publish " +
    "waiting on the storage array, a slow format in NodeStage).",
  kubernetesReaction:
    "The operation stays pending and its pod ContainerCreating (or Terminating, for unpublish); the kubelet " +
    "refuses new operations on the same volume meanwhile. A ControllerPublishVolume slower than the " +
    `external-attacher's ${externalAttacherTimeout} timeout is retried by it; a node call slower than the kubelet's ` +
    `${csiTimeout} CSI timeout fails with DeadlineExceeded and the mount becomes Uncertain.`,
  healing: "Calls made afterwards are answered at once.",
  params: [
    methodParam(),
    { name: "delay", type: "duration", required: true, description: "How long each affected call takes." },
    ...hookTargetParams,
    timesParam,
  ],
  async inject(cluster, params) {
    const args = new FaultArgs(csiCallSlow, params);
    const delayMs = args.durationMs("delay");
    const { hooks, method, scope } = placeHook(cluster, args);
    for (const hook of hooks) hook.set(method, { ...scope, delayMs });
  },
  async heal(cluster, params) {
    clearHook(cluster, new FaultArgs(csiCallSlow, params));
  },
  targets: async (cluster) => exploredHookTargets(cluster, { delay: "30s" }),
};
