/**
 * Both sidecars with the real PV controller and the real attach/detach controller: a claim is
 * provisioned and bound, a pod on a node gets its volume attached through a VolumeAttachment the
 * ADC creates and the attacher publishes, and everything is undone in order when the pod and the
 * claim go.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SimWorld } from "../../host/sim/sim-world.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import { AttachDetachController } from "../attachdetach/attach-detach-controller.ts";
import { controllerManagedAttachAnnotation } from "../attachdetach/constants.ts";
import { startSidecarEnv, testNamespace } from "./testing/sidecar-test-env.ts";

describe("sidecars with the PV controller and the attach/detach controller", () => {
  it("provision → attach → detach → delete, with the driver called in that order", async () => {
    const env = await startSidecarEnv();
    const { client, clock } = env.api;
    const adc = new AttachDetachController(env.context, {
      simDiskProvider: new SimWorld(clock, env.api.rng.stream("world")).disks,
    });
    adc.start();
    await env.addClass("fast");
    await env.addNode("node-a", { csiNode: { nodeId: "mock-node-a" } });
    await client.nodes.mutate("", "node-a", (draft) => {
      draft.metadata = { ...draft.metadata, annotations: { [controllerManagedAttachAnnotation]: "true" } };
    });
    const now = formatRfc3339(clock.now());
    await client.nodes.mutate(
      "",
      "node-a",
      (draft) => {
        draft.status = {
          conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: now, lastTransitionTime: now }],
        };
      },
      { subresource: "status" },
    );
    const claim = await env.addClaim("data");
    const handle = `mock-pvc-${claim.metadata?.uid}`;
    await env.runUntil(async () => (await env.claim("data")).status?.phase === "Bound");

    await client.pods.create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { namespace: testNamespace, name: "web" },
      spec: {
        nodeName: "node-a",
        containers: [{ name: "main", image: "busybox" }],
        volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }],
      },
    });
    const attachedNames = async () =>
      ((await client.nodes.get("", "node-a")).status?.volumesAttached ?? []).map((entry) => entry.name);
    await env.runUntil(async () => (await attachedNames()).includes(`kubernetes.io/csi/mock.csi.kvol.io^${handle}`));
    assert.deepEqual(env.mock.snapshot().volumes[0]?.publishedNodeIds, ["mock-node-a"]);

    await client.pods.delete(testNamespace, "web", { gracePeriodSeconds: 0 });
    await client.persistentVolumeClaims.delete(testNamespace, "data");
    await env.runUntil(() => env.mock.calls("DeleteVolume").length === 1);
    await env.runUntil(async () => (await client.persistentVolumes.list()).items.length === 0);
    assert.deepEqual(
      env.mock
        .calls()
        .map((call) => call.method)
        .filter((method) => /Volume$/.test(method)),
      ["CreateVolume", "ControllerPublishVolume", "ControllerUnpublishVolume", "DeleteVolume"],
    );
    assert.deepEqual(await attachedNames(), []);
    const adcStopped = adc.stop();
    await env.stop();
    await adcStopped;
  });
});
