/**
 * An invariant a cache asserts in the code stops a checked run at the instant it breaks, naming
 * the object's key — here the attach/detach controller's per-node index, corrupted as a bug would:
 * the run stops when the controller next reads the node's entry, not when some property of the
 * world finally goes wrong (a volume the index names but that is not attached would never be).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AttachDetachController } from "../../controllers/attachdetach/attach-detach-controller.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import { isRunning } from "../testing/e2e.ts";
import { claimYaml, podYaml, storageClassYaml } from "../testing/manifests.ts";
import { runChecked } from "./checked-run.ts";
import { InvariantChecker } from "./checker.ts";

const minuteMs = 60_000;

describe("asserted-in-code", () => {
  const startCluster = clusterPerTest();

  it("stops the run when the controller next reads the node's index entry that is not attached, naming it", async () => {
    const cluster = await startCluster({ seed: 22 });
    await cluster.addNode("node-a", { zone: "zone-1" });
    const checker = new InvariantChecker(cluster);
    await cluster.apply(
      `${storageClassYaml()}---\n${claimYaml("data")}---\n${podYaml("web", "persistentVolumeClaim: { claimName: data }")}`,
    );
    const running = async () => isRunning(await cluster.tryGet("Pod", "default", "web"));
    assert.equal(await runChecked(cluster, checker, { until: running, forMs: 2 * minuteMs }), undefined);

    const controller = cluster.controllers.find((candidate) => candidate instanceof AttachDetachController);
    assert.ok(controller instanceof AttachDetachController);
    assert.deepEqual(
      controller.asw.getAttachedVolumes().map((attached) => attached.nodeName),
      ["node-a"],
    );
    const volumeName = "kvol.io/sim-disk/never-attached";
    const index = (controller.asw as unknown as { volumesByNode: Map<string, Set<string>> }).volumesByNode;
    index.get("node-a")?.add(volumeName);

    const report = await runChecked(cluster, checker, { forMs: 10 * minuteMs });
    const key = `volume "${volumeName}" on node "node-a"`;
    assert.deepEqual(report?.violations, [
      {
        invariant: "asserted-in-code",
        message: `invariant violated for ${key}: in volumesByNode, but not attached`,
        objects: [key],
      },
    ]);
    assert.equal(report?.atMs, cluster.clock.now(), "the run stopped at the check that found it");
    checker.stop();
  });
});
