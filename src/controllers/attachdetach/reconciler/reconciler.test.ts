import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Node, Pod } from "kubernetes-types/core/v1.js";
import { taintNodeOutOfService } from "../../../api/scheduling/taints.ts";
import { Logger, MemorySink } from "../../../runtime/logger.ts";
import { VirtualClock } from "../../../runtime/virtual-clock.ts";
import type { OperationExecutor } from "../../../volume/operationexecutor/operation-executor.ts";
import { VolumeSpec } from "../../../volume/spec.ts";
import { ActualStateOfWorld } from "../cache/actual-state-of-world.ts";
import { DesiredStateOfWorld } from "../cache/desired-state-of-world.ts";
import type { NodeStatusUpdater } from "../statusupdater/node-status-updater.ts";
import type { MultiAttachPolicy } from "./multi-attach-policy.ts";
import { Reconciler } from "./reconciler.ts";

const spec = VolumeSpec.fromPersistentVolume({ metadata: { name: "pv" } });
/** Shut down: not Ready and tainted out-of-service, so every unwanted volume is force-detached at once. */
const shutDownNode: Node = {
  spec: { taints: [{ key: taintNodeOutOfService, value: "nodeshutdown", effect: "NoExecute" }] },
  status: { conditions: [{ type: "Ready", status: "False" }] },
};
const pod: Pod = { metadata: { name: "web", namespace: "shop", uid: "uid-1" } };

/**
 * vol-a and vol-b attached to node-1, still mounted there, no pod wants them. `duringWrite` runs
 * while the status write of the n-th pair (1-based) is in flight.
 */
async function detachPassWith(duringWrite: (dsw: DesiredStateOfWorld, write: number) => void): Promise<string[]> {
  const clock = new VirtualClock();
  const dsw = new DesiredStateOfWorld();
  const asw = new ActualStateOfWorld(clock, (volume, node) => dsw.volumeExists(volume, node));
  dsw.onWantedChange((volume, node) => asw.wantedChanged(volume, node));
  dsw.addNode("node-1", false);
  asw.markVolumeAsAttached("vol-a", spec, "node-1", "/dev/a");
  asw.markVolumeAsAttached("vol-b", spec, "node-1", "/dev/b");
  asw.setVolumesMountedByNode("node-1", ["vol-a", "vol-b"]);
  const detached: string[] = [];
  let writes = 0;
  const executor = {
    isOperationSafeToRetry: () => true,
    detachVolume: (volume: { volumeName: string }) => {
      detached.push(volume.volumeName);
      return undefined;
    },
    pendingOperations: { pendingCount: () => 0 },
  } as unknown as OperationExecutor;
  const statusUpdater = {
    updateNodeStatusForNode: async () => {
      duringWrite(dsw, ++writes);
      await Promise.resolve();
      return true;
    },
  } as unknown as NodeStatusUpdater;
  const reconciler = new Reconciler({
    clock,
    logger: new Logger({ clock, sink: new MemorySink() }),
    dsw,
    asw,
    executor,
    statusUpdater,
    recorder: { event: () => undefined },
    cachedNode: () => shutDownNode,
    loopPeriodMs: 100,
    maxWaitForUnmountMs: 360_000,
    syncPeriodMs: 60_000,
    disableReconcileSync: true,
    disableForceDetachOnTimeout: false,
    multiAttachPolicy: {} as MultiAttachPolicy,
  });
  await (reconciler as unknown as { detachPass(): Promise<boolean> }).detachPass();
  return detached;
}

describe("Reconciler detach pass: a volume wanted again is not force-detached", () => {
  it("skips a later pair that a pod came to want while an earlier pair's status was written", async () => {
    const detached = await detachPassWith((dsw, write) => {
      if (write === 1) dsw.addPod("uid-1", pod, "vol-b", spec, "node-1");
    });
    assert.deepEqual(detached, ["vol-a"]);
  });

  it("does not detach a pair that a pod came to want while its own status was written", async () => {
    const detached = await detachPassWith((dsw, write) => {
      if (write === 2) dsw.addPod("uid-1", pod, "vol-b", spec, "node-1");
    });
    assert.deepEqual(detached, ["vol-a"]);
  });

  it("force-detaches both when no pod comes to want either", async () => {
    assert.deepEqual(await detachPassWith(() => undefined), ["vol-a", "vol-b"]);
  });
});
