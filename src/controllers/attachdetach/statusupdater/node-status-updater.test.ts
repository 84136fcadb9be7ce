import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Node } from "kubernetes-types/core/v1.js";
import { newTestApi } from "../../../api/client/testing/test-api.ts";
import { ActualStateOfWorld } from "../cache/actual-state-of-world.ts";
import { NodeStatusUpdater } from "./node-status-updater.ts";

async function fixture(): Promise<{
  api: ReturnType<typeof newTestApi>;
  asw: ActualStateOfWorld;
  updater: NodeStatusUpdater;
  cache: Map<string, Node>;
}> {
  const api = newTestApi();
  const node = await api.client.nodes.create({ apiVersion: "v1", kind: "Node", metadata: { name: "node-1" } });
  const cache = new Map<string, Node>([["node-1", node]]);
  // Status writes do not depend on what pods want.
  const asw = new ActualStateOfWorld(api.clock, () => false);
  const updater = new NodeStatusUpdater({
    client: api.client,
    cachedNode: (name) => cache.get(name),
    asw,
    logger: api.logger,
  });
  return { api, asw, updater, cache };
}

describe("NodeStatusUpdater", () => {
  it("writes status.volumesAttached, sorted, once per change", async () => {
    const { api, asw, updater } = await fixture();
    asw.markVolumeAsAttached("vol-b", undefined, "node-1", "/dev/b");
    asw.markVolumeAsAttached("vol-a", undefined, "node-1", "/dev/a");
    assert.equal(await updater.updateNodeStatuses(), true);
    const node = await api.client.nodes.get("", "node-1");
    assert.deepEqual(node.status?.volumesAttached, [
      { name: "vol-a", devicePath: "/dev/a" },
      { name: "vol-b", devicePath: "/dev/b" },
    ]);
    const writes = api.client.calls.count("patch");
    await updater.updateNodeStatuses();
    assert.equal(api.client.calls.count("patch"), writes, "nothing changed, nothing written");
  });

  it("does not trust a cache that lags behind its own write", async () => {
    const { api, asw, updater, cache } = await fixture();
    asw.markVolumeAsAttached("vol-a", undefined, "node-1", "/dev/a");
    await updater.updateNodeStatuses();
    cache.set("node-1", await api.client.nodes.get("", "node-1"));
    asw.removeVolumeFromReportAsAttached("vol-a", "node-1");
    await updater.updateNodeStatusForNode("node-1");
    // The cache still lists vol-a (the watch has not delivered the write yet) when it is reported again.
    asw.addVolumeToReportAsAttached("vol-a", "node-1");
    await updater.updateNodeStatuses();
    assert.deepEqual((await api.client.nodes.get("", "node-1")).status?.volumesAttached, [
      { name: "vol-a", devicePath: "/dev/a" },
    ]);
  });

  it("skips nodes it cannot see or that were deleted", async () => {
    const { api, asw, updater } = await fixture();
    asw.markVolumeAsAttached("vol-a", undefined, "node-2", "/dev/a");
    assert.equal(await updater.updateNodeStatuses(), true, "node-2 is not in the cache: skipped");
    asw.markVolumeAsAttached("vol-a", undefined, "node-1", "/dev/a");
    await api.client.nodes.delete("", "node-1");
    assert.equal(await updater.updateNodeStatuses(), true, "a Node deleted meanwhile is not retried");
    assert.deepEqual(asw.nodesNeedingStatusUpdate(), []);
  });

  it("marks a node whose write failed for another try", async () => {
    const { api, asw } = await fixture();
    const node = await api.client.nodes.get("", "node-1");
    const failing = new NodeStatusUpdater({
      client: { nodes: { patch: () => Promise.reject(new Error("etcdserver: request timed out")) } },
      cachedNode: () => node,
      asw,
      logger: api.logger,
    });
    asw.markVolumeAsAttached("vol-a", undefined, "node-1", "/dev/a");
    assert.equal(await failing.updateNodeStatuses(), false);
    assert.deepEqual(asw.nodesNeedingStatusUpdate(), ["node-1"]);
  });
});
