import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { Cluster } from "../../cmd/cluster.ts";
import { joinScenarioNode } from "./join-node.ts";

const apiLatencyMs = 2_000;

describe("the addNode step", () => {
  const clusters: Cluster[] = [];
  afterEach(async () => {
    for (const cluster of clusters.splice(0)) await cluster.stop();
  });

  async function start(): Promise<Cluster> {
    const cluster = await Cluster.start({ seed: 3 });
    clusters.push(cluster);
    return cluster;
  }

  it("has the Node registered when it returns, through a healthy API", async () => {
    const cluster = await start();
    await joinScenarioNode(cluster, { name: "node-b", zone: "zone-1" });
    assert.notEqual(await cluster.tryGet("Node", "", "node-b"), undefined);
  });

  it("returns without waiting on the clock when api-latency slows the registration, which ends later", async () => {
    const cluster = await start();
    cluster.apiFaults.setLatency(apiLatencyMs);
    const startedMs = cluster.clock.now();
    // Before the fix this never resolved: the registration slept on a clock nobody moved.
    await joinScenarioNode(cluster, { name: "node-b", zone: "zone-1" });
    assert.equal(cluster.clock.now(), startedMs, "the step took no virtual time");
    assert.equal(await cluster.tryGet("Node", "", "node-b"), undefined, "not registered yet");
    await cluster.runUntil(async () => (await cluster.tryGet("Node", "", "node-b")) !== undefined, {
      timeoutMs: 10 * apiLatencyMs,
      description: "node-b registered",
    });
  });

  it("rejects when the node cannot join at all", async () => {
    const cluster = await start();
    await joinScenarioNode(cluster, { name: "node-b" });
    await assert.rejects(joinScenarioNode(cluster, { name: "node-b" }), /node node-b was already added/);
  });
});
