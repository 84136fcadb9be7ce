/**
 * The kubelet's NodeExpandVolume for a mounted claim: the claim it leaves and the events the pod
 * shows, on success, on an infeasible size and on a transient failure.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import { CsiError } from "../../csi/grpc/errors.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { type ClaimStatusAccess, nodeExpandVolume } from "./node-expand-operation.ts";

const pod: Pod = { metadata: { name: "web", namespace: "default", uid: "uid-1" } };

const volume: PersistentVolume = {
  apiVersion: "v1",
  kind: "PersistentVolume",
  metadata: { name: "pv-1" },
  spec: { capacity: { storage: "2Gi" }, claimRef: { namespace: "default", name: "data" } },
};

function pendingClaim(): PersistentVolumeClaim {
  return {
    apiVersion: "v1",
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

function harness(expand: (bytes: bigint) => Promise<void>) {
  let stored = pendingClaim();
  const writes: string[] = [];
  const events: { type: string; reason: string; message: string; pod: string | undefined }[] = [];
  const requested: bigint[] = [];
  const claims: ClaimStatusAccess = {
    get: async () => stored,
    writeStatus: async (claim, status) => {
      writes.push(status.allocatedResourceStatuses?.storage ?? "(none)");
      stored = { ...claim, status };
    },
  };
  const run = () =>
    nodeExpandVolume({
      pod,
      volume,
      nodeName: "node-1",
      subject: { specName: "pv-1", details: '(UniqueName: "kubernetes.io/csi/disk^v1") pod "web" (UID: "uid-1")' },
      claims,
      expander: {
        nodeExpand: (bytes) => {
          requested.push(bytes);
          return expand(bytes);
        },
      },
      recorder: {
        event: (object, type, reason, message) => events.push({ type, reason, message, pod: object.metadata?.name }),
      },
      clock: new VirtualClock(),
    });
  return { run, claim: () => stored, writes, events, requested };
}

describe("kubelet NodeExpandVolume", () => {
  it("grows to the PV's size, then the claim shows it with no resize condition or status left", async () => {
    const h = harness(() => Promise.resolve());
    assert.equal(await h.run(), true);
    assert.deepEqual(h.requested, [2147483648n]);
    assert.deepEqual(h.writes, ["NodeResizeInProgress", "(none)"]);
    assert.deepEqual(h.claim().status?.capacity, { storage: "2Gi" });
    assert.equal(h.claim().status?.conditions, undefined);
    assert.deepEqual(h.events, [
      {
        type: "Normal",
        reason: "FileSystemResizeSuccessful",
        message: 'MountVolume.NodeExpandVolume succeeded for volume "pv-1" node-1',
        pod: "web",
      },
    ]);
    assert.equal(await h.run(), false, "a second pass finds nothing left to grow");
  });

  it("an OutOfRange answer makes the claim NodeResizeInfeasible and the pod shows VolumeResizeFailed", async () => {
    const h = harness(async () => {
      throw new CsiError("OutOfRange", "too big");
    });
    await assert.rejects(h.run(), /MountVolume.NodeExpandVolume failed for volume "pv-1" \(UniqueName/);
    assert.deepEqual(h.claim().status?.allocatedResourceStatuses, { storage: "NodeResizeInfeasible" });
    assert.deepEqual(h.claim().status?.capacity, { storage: "1Gi" });
    const condition = h.claim().status?.conditions?.find((c) => c.type === "NodeResizeError");
    assert.equal(condition?.message, "failed to expand pvc with rpc error: code = OutOfRange desc = too big");
    assert.deepEqual(h.events, [
      {
        type: "Warning",
        reason: "VolumeResizeFailed",
        message: 'MountVolume.NodeExpandVolume failed for volume "pv-1" : rpc error: code = OutOfRange desc = too big',
        pod: "web",
      },
    ]);
    assert.equal(await h.run(), false, "an infeasible size is not retried until the request changes");
  });

  it("a transient failure leaves NodeResizeInProgress and is retried", async () => {
    let fail = true;
    const h = harness(async () => {
      if (fail) throw new CsiError("Unavailable", "driver restarting");
    });
    await assert.rejects(h.run());
    assert.deepEqual(h.claim().status?.allocatedResourceStatuses, { storage: "NodeResizeInProgress" });
    fail = false;
    assert.equal(await h.run(), true);
    assert.deepEqual(h.claim().status?.capacity, { storage: "2Gi" });
    assert.equal(h.claim().status?.conditions, undefined, "NodeResizeError is cleared with the rest");
  });
});
