import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Client } from "../../api/client/client.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import { controllerManagedAttachAnnotation } from "./constants.ts";
import { startAdcTestEnv, testNamespace } from "./testing/adc-test-env.ts";

const nodeCount = 1_000;
const volumesPerNode = 10;
const pool = "kube";

function imageOf(node: number, slot: number): string {
  return `img-${node}-${slot}`;
}

function uniqueName(node: number, slot: number): string {
  return `kubernetes.io/rbd/${pool}:${imageOf(node, slot)}`;
}

/** One node with its ten RBD volumes, their claims and pods, as a previous controller and the kubelet left them. */
async function createSteadyNode(client: Client, node: number, nowMs: number): Promise<void> {
  const nodeName = `node-${node}`;
  const volumes = Array.from({ length: volumesPerNode }, (_, slot) => uniqueName(node, slot));
  await client.nodes.create({
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: nodeName, annotations: { [controllerManagedAttachAnnotation]: "true" } },
  });
  const stamp = formatRfc3339(nowMs);
  await client.nodes.mutate(
    "",
    nodeName,
    (draft) => {
      draft.status = {
        conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: stamp, lastTransitionTime: stamp }],
        volumesAttached: volumes.map((name) => ({ name, devicePath: "" })),
        volumesInUse: volumes,
      };
    },
    { subresource: "status" },
  );
  for (let slot = 0; slot < volumesPerNode; slot++) {
    const name = `data-${node}-${slot}`;
    const claim = await client.persistentVolumeClaims.create({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { namespace: testNamespace, name },
      spec: {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "1Gi" } },
        storageClassName: "",
        volumeName: name,
      },
    });
    await client.persistentVolumeClaims.mutate(
      testNamespace,
      name,
      (draft) => {
        draft.status = { phase: "Bound", accessModes: ["ReadWriteOnce"], capacity: { storage: "1Gi" } };
      },
      { subresource: "status" },
    );
    await client.persistentVolumes.create({
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name },
      spec: {
        capacity: { storage: "1Gi" },
        accessModes: ["ReadWriteOnce"],
        rbd: { monitors: ["10.0.255.1:6789"], pool, image: imageOf(node, slot), fsType: "ext4" },
        claimRef: {
          kind: "PersistentVolumeClaim",
          apiVersion: "v1",
          namespace: testNamespace,
          name,
          uid: claim.metadata?.uid ?? "",
        },
      },
    });
    await client.pods.create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { namespace: testNamespace, name: `app-${node}-${slot}` },
      spec: {
        nodeName,
        containers: [{ name: "main", image: "busybox" }],
        volumes: [{ name: "data", persistentVolumeClaim: { claimName: name } }],
      },
    });
  }
}

describe("AttachDetachController at scale", () => {
  it(`${nodeCount} nodes × ${volumesPerNode} volumes in steady state: idle passes cost no API call and no work`, async () => {
    const env = await startAdcTestEnv();
    await env.stopController();
    for (let node = 0; node < nodeCount; node++) await createSteadyNode(env.api.client, node, env.api.clock.now());

    const controller = env.restartController();
    await env.runFor(1_000);
    assert.equal(
      controller.asw.getAttachedVolumesPerNode().size,
      nodeCount,
      "every attachment rebuilt from node status",
    );
    assert.equal(controller.dsw.getVolumesToAttach().length, nodeCount * volumesPerNode);
    assert.equal(controller.reconciler.isParked(), true);

    env.api.client.calls.reset();
    const passesBefore = controller.reconciler.passCount();
    await env.runFor(3 * 60_000);
    assert.equal(env.api.client.calls.total(), 0, env.api.client.calls.describe());
    // Three minutes of a 100 ms loop is 1,800 passes in Kubernetes; parked, only the minute syncs run.
    const passes = controller.reconciler.passCount() - passesBefore;
    assert.ok(passes <= 3 * 2, `${passes} passes in three idle minutes`);
    assert.equal(controller.executor.pendingOperations.pendingCount(), 0);
    await env.stop();
  });
});
