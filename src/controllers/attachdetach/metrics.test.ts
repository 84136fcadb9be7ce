/**
 * attach_detach_controller_attachdetach_controller_forced_detaches, as a user scraping
 * kube-controller-manager sees it after the seed incidents: the out-of-service taint of seed 004
 * and the 6 min timeout on a dead node of scenario 008 each count one forced detach.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Cluster } from "../../cmd/cluster.ts";
import { runScenario } from "../../sim/runner/run-scenario.ts";
import { loadScenarioFile } from "../../sim/scenario/load.ts";
import { qualifiedPluginName } from "./metrics.ts";

const scenarios = fileURLToPath(new URL("../../../scenarios/", import.meta.url));

async function metricsAfter(file: string): Promise<string> {
  let started: Cluster | undefined;
  const result = await runScenario(loadScenarioFile(join(scenarios, file)), {
    clusterOptions: { onStarted: (cluster) => (started = cluster) },
  });
  assert.equal(result.passed, true, `${file} passes`);
  assert.ok(started, "the cluster started");
  return started.metrics.exposition();
}

function forcedDetaches(text: string, reason: string): number | undefined {
  const prefix = `attach_detach_controller_attachdetach_controller_forced_detaches{reason="${reason}"} `;
  const line = text.split("\n").find((candidate) => candidate.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

describe("attach/detach controller metrics", () => {
  it("counts the forced detach of seed 004's out-of-service node with reason out-of-service", async () => {
    const text = await metricsAfter("004-rbd-node-shutdown-out-of-service.yaml");
    assert.equal(forcedDetaches(text, "out-of-service"), 1);
    assert.equal(forcedDetaches(text, "timeout"), undefined);
    // The replacement pod's volume, wanted on and attached to its new node.
    for (const state of ["desired_state_of_world", "actual_state_of_world"]) {
      const line = `attachdetach_controller_total_volumes{plugin_name="kubernetes.io/rbd",state="${state}"} 1`;
      assert.ok(text.split("\n").includes(line), `${line} in\n${text}`);
    }
  });

  it("counts the forced detach after 6 min on a dead node with reason timeout", async () => {
    const text = await metricsAfter("008-force-detach-dead-node.yaml");
    assert.equal(forcedDetaches(text, "timeout"), 1);
  });

  it("names each volume's plugin as Kubernetes labels attachdetach_controller_total_volumes", () => {
    assert.equal(qualifiedPluginName("kubernetes.io/csi/disk.csi.kvol.io^vol-1"), "kubernetes.io/csi:disk.csi.kvol.io");
    assert.equal(qualifiedPluginName("kubernetes.io/rbd/rbd:kube/image-1"), "kubernetes.io/rbd");
  });
});
