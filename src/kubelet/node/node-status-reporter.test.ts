import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newTestApi, type TestApi } from "../../api/client/testing/test-api.ts";
import { EventRecorder } from "../../api/events/recorder.ts";
import { NodeStatusReporter, type VolumesInUseReporter } from "./node-status-reporter.ts";

class FakeVolumes implements VolumesInUseReporter {
  synced = false;
  inUse: string[] = [];
  reported: string[][] = [];

  getVolumesInUse(): string[] {
    return [...this.inUse];
  }

  statesHaveBeenSynced(): boolean {
    return this.synced;
  }

  markVolumesAsReportedInUse(volumes: readonly string[]): void {
    this.reported.push([...volumes]);
  }
}

function reporter(api: TestApi, volumes: FakeVolumes, zone?: string): NodeStatusReporter {
  return new NodeStatusReporter({
    client: api.client,
    clock: api.clock,
    rng: api.rng,
    logger: api.logger,
    recorder: new EventRecorder({
      client: api.client,
      clock: api.clock,
      logger: api.logger,
      source: { component: "kubelet", host: "node-1" },
    }),
    identity: { nodeName: "node-1", address: "10.0.0.10", ...(zone === undefined ? {} : { zone }) },
    volumes,
    nodeStatusUpdateFrequencyMs: 10_000,
  });
}

describe("NodeStatusReporter", () => {
  it("registers the node with its labels, the attach/detach annotation and a Ready condition", async () => {
    const api = newTestApi();
    await reporter(api, new FakeVolumes(), "zone-a").register();
    const node = await api.client.nodes.get("", "node-1");
    assert.equal(node.metadata?.labels?.["kubernetes.io/hostname"], "node-1");
    assert.equal(node.metadata?.labels?.["topology.kubernetes.io/zone"], "zone-a");
    assert.equal(node.metadata?.annotations?.["volumes.kubernetes.io/controller-managed-attach-detach"], "true");
    const ready = node.status?.conditions?.find((condition) => condition.type === "Ready");
    assert.equal(ready?.status, "True");
    assert.equal(ready?.reason, "KubeletReady");
    assert.equal(ready?.message, "kubelet is posting ready status");
    assert.deepEqual(node.status?.addresses?.[0], { type: "InternalIP", address: "10.0.0.10" });
  });

  it("puts the annotation back when a node registers again over an existing Node", async () => {
    const api = newTestApi();
    await reporter(api, new FakeVolumes()).register();
    await api.client.nodes.mutate("", "node-1", (node) => {
      node.metadata = { ...node.metadata, annotations: {} };
    });
    await reporter(api, new FakeVolumes()).register();
    const node = await api.client.nodes.get("", "node-1");
    assert.equal(node.metadata?.annotations?.["volumes.kubernetes.io/controller-managed-attach-detach"], "true");
  });

  it("leaves volumesInUse as it was until the volume manager has synced, then reports it and marks it in use", async () => {
    const api = newTestApi();
    const volumes = new FakeVolumes();
    const status = reporter(api, volumes);
    await status.register();
    await api.client.nodes.mutate(
      "",
      "node-1",
      (node) => {
        node.status = { ...node.status, volumesInUse: ["kvol.io/sim-disk/old"] };
      },
      { subresource: "status" },
    );
    volumes.inUse = ["kvol.io/sim-disk/new"];
    await status.syncNodeStatus();
    assert.deepEqual((await api.client.nodes.get("", "node-1")).status?.volumesInUse, ["kvol.io/sim-disk/old"]);
    assert.deepEqual(volumes.reported.at(-1), ["kvol.io/sim-disk/old"], "the previous instance's report still counts");

    volumes.synced = true;
    await status.syncNodeStatus();
    assert.deepEqual((await api.client.nodes.get("", "node-1")).status?.volumesInUse, ["kvol.io/sim-disk/new"]);
    assert.deepEqual(volumes.reported.at(-1), ["kvol.io/sim-disk/new"]);
  });

  it("writes an unchanged status only every 5 minutes, but checks it every 10 s", async () => {
    const api = newTestApi();
    const volumes = new FakeVolumes();
    volumes.synced = true;
    const status = reporter(api, volumes);
    await status.register();
    status.start();
    await api.clock.runFor(0);
    const writesAfterStart = api.client.calls.count("update", "nodes/status");
    await api.clock.runFor(4 * 60_000);
    assert.equal(
      api.client.calls.count("update", "nodes/status"),
      writesAfterStart,
      "nothing changed, nothing written",
    );
    const checks = volumes.reported.length;
    assert.ok(checks >= 23 && checks <= 25, `${checks} passes in 4 min (10 s + up to 4% jitter)`);

    volumes.inUse = ["kvol.io/sim-disk/disk-1"];
    await api.clock.runFor(10_500);
    assert.deepEqual((await api.client.nodes.get("", "node-1")).status?.volumesInUse, ["kvol.io/sim-disk/disk-1"]);
    status.stop();
  });
});
