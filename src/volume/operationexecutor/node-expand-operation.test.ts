/**
 * The kubelet's node expansion of a claim: the claim it leaves and the events the pod and the
 * claim show — on success, on a read-only use, on an infeasible size, on a transient failure and
 * when the driver cannot grow the volume while it is in use.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import { Logger, MemorySink } from "../../runtime/logger.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { FailedPreconditionError, InfeasibleError } from "../errors.ts";
import type { NodeExpandableVolumePlugin, NodeResizeOptions } from "../plugin.ts";
import type { VolumePluginManager } from "../plugin-manager.ts";
import { VolumeSpec } from "../spec.ts";
import { expandVolumeDuringMount, nodeExpandVolume } from "./node-expand-operation.ts";
import type { OperationContext } from "./operation-context.ts";
import { RecordingActualState } from "./testing/recording-actual-state.ts";

const pod: Pod = {
  kind: "Pod",
  metadata: { name: "web", namespace: "default", uid: "uid-1" },
  spec: { nodeName: "node-1", containers: [] },
};
const gi = 1024n ** 3n;

function volume(): PersistentVolume {
  return {
    metadata: { name: "pv-1" },
    spec: {
      capacity: { storage: "2Gi" },
      claimRef: { namespace: "default", name: "data" },
      csi: { driver: "disk.csi.kvol.io", volumeHandle: "v1" },
    },
  };
}

function pendingClaim(): PersistentVolumeClaim {
  return {
    kind: "PersistentVolumeClaim",
    metadata: { name: "data", namespace: "default" },
    spec: { volumeName: "pv-1", resources: { requests: { storage: "2Gi" } } },
    status: {
      phase: "Bound",
      capacity: { storage: "1Gi" },
      allocatedResources: { storage: "2Gi" },
      allocatedResourceStatuses: { storage: "NodeResizePending" },
      conditions: [{ type: "FileSystemResizePending", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z" }],
    },
  };
}

function harness(expand: (options: NodeResizeOptions) => Promise<void>, readOnly = false) {
  let stored = pendingClaim();
  const events: string[] = [];
  const requested: bigint[] = [];
  const clock = new VirtualClock();
  const context: OperationContext = {
    plugins: {} as VolumePluginManager,
    nodes: { get: async () => ({}) },
    clock,
    logger: new Logger({ clock, sink: new MemorySink() }),
    recorder: {
      event: (object, type, reason, message) => events.push(`${object.kind} ${type} ${reason} ${message}`),
    },
    claims: {
      get: async () => stored,
      writeStatus: async (claim, status) => {
        stored = { ...claim, kind: "PersistentVolumeClaim", status };
        return stored;
      },
    },
  };
  const plugin = {
    name: "kubernetes.io/csi",
    requiresFSResize: () => true,
    nodeExpand: async (options: NodeResizeOptions) => {
      requested.push(options.newSizeBytes);
      await expand(options);
      return true;
    },
  } as unknown as NodeExpandableVolumePlugin;
  const asw = new RecordingActualState();
  const spec = VolumeSpec.fromPersistentVolume(volume(), readOnly);
  const expansion = {
    volume: {
      volumeName: "kubernetes.io/csi/disk.csi.kvol.io^v1",
      podName: "uid-1",
      pod,
      volumeSpec: spec,
      outerVolumeSpecName: "data",
      pluginIsAttachable: true,
      pluginIsDeviceMountable: true,
      devicePath: "",
      reportedInUse: true,
    },
    plugin,
    asw,
    options: {
      volumeSpec: spec,
      devicePath: "",
      deviceMountPath: "/pods/uid-1/mount",
      deviceStagePath: "/globalmount",
      oldSizeBytes: gi,
      newSizeBytes: 2n * gi,
    },
  };
  return {
    online: () => nodeExpandVolume(context, expansion),
    duringMount: () => expandVolumeDuringMount(context, expansion),
    claim: () => stored,
    events,
    requested,
    asw,
  };
}

const success = 'MountVolume.NodeExpandVolume succeeded for volume "pv-1" node-1';

describe("kubelet node expansion", () => {
  it("grows to the allocated size; the claim shows 2Gi with no condition or status; both get FileSystemResizeSuccessful", async () => {
    const h = harness(() => Promise.resolve());
    assert.deepEqual(await h.online(), { done: true, sizeBytes: 2n * gi });
    assert.deepEqual(h.requested, [2147483648n]);
    assert.deepEqual(h.claim().status?.capacity, { storage: "2Gi" });
    assert.equal(h.claim().status?.conditions, undefined);
    assert.equal(h.claim().status?.allocatedResourceStatuses, undefined);
    assert.deepEqual(h.events, [
      `Pod Normal FileSystemResizeSuccessful ${success}`,
      `PersistentVolumeClaim Normal FileSystemResizeSuccessful ${success}`,
    ]);
    assert.deepEqual(await h.duringMount(), { done: true, sizeBytes: 2n * gi }, "a later mount finds nothing to grow");
    assert.equal(h.requested.length, 1);
  });

  it("a read-only use is not grown: FileSystemResizeFailed on the pod and the claim", async () => {
    const h = harness(() => Promise.resolve(), true);
    await h.duringMount();
    const message = 'MountVolume.NodeExpandVolume failed for volume "pv-1" requested read-only file system';
    assert.deepEqual(h.events, [
      `Pod Warning FileSystemResizeFailed ${message}`,
      `PersistentVolumeClaim Warning FileSystemResizeFailed ${message}`,
    ]);
    assert.deepEqual(h.requested, []);
  });

  it("an infeasible size makes the claim NodeResizeInfeasible with the driver's error", async () => {
    const h = harness(async () => {
      throw new InfeasibleError("Expander.NodeExpand failed to expand the volume : too big");
    });
    await assert.rejects(h.online(), /too big/);
    assert.deepEqual(h.claim().status?.allocatedResourceStatuses, { storage: "NodeResizeInfeasible" });
    assert.deepEqual(h.claim().status?.capacity, { storage: "1Gi" });
    const condition = h.claim().status?.conditions?.find((c) => c.type === "NodeResizeError");
    assert.equal(
      condition?.message,
      "failed to expand pvc with Expander.NodeExpand failed to expand the volume : too big",
    );
    assert.deepEqual(await h.online(), { done: false, sizeBytes: gi }, "not retried until the request changes");
  });

  it("a transient failure keeps NodeResizeInProgress, no condition, and the retry finishes", async () => {
    let fail = true;
    const h = harness(async () => {
      if (fail) throw new Error("driver busy");
    });
    await assert.rejects(h.online(), /driver busy/);
    assert.deepEqual(h.claim().status?.allocatedResourceStatuses, { storage: "NodeResizeInProgress" });
    fail = false;
    assert.equal((await h.online()).done, true);
    assert.deepEqual(h.claim().status?.capacity, { storage: "2Gi" });
    assert.equal(h.claim().status?.conditions, undefined, "NodeResizeError is cleared with the rest");
  });

  it("FailedPrecondition (cannot grow in use): no error, the volume is marked, the claim keeps FileSystemResizePending", async () => {
    const h = harness(async () => {
      throw new FailedPreconditionError("Expander.NodeExpand failed to expand the volume : offline only");
    });
    assert.deepEqual(await h.online(), { done: false, sizeBytes: gi });
    assert.deepEqual([...h.asw.inUseExpansionErrors], ["kubernetes.io/csi/disk.csi.kvol.io^v1"]);
    const types = h.claim().status?.conditions?.map((c) => c.type);
    assert.deepEqual(types, ["FileSystemResizePending", "NodeResizeError"]);
    assert.deepEqual(h.events, []);
  });
});
