/**
 * The kubelet's Summary API through the API server (`nodes/<node>/proxy/stats/summary`), as
 * `kubectl get --raw` reads it: on scenario 014 at 1m, the node, and its Running pod with the
 * claim's volume — its name in the pod, the claim it comes from, the simulated bucket's space and
 * inodes — for administrators only, like the node proxy's other paths.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StaticTokenAuthenticator } from "../../apiserver/auth/token-authenticator.ts";
import { adminGroup, adminUserName, nodeUser } from "../../apiserver/auth/user-info.ts";
import type { Summary } from "../../kubelet/stats/stats-summary.ts";
import { runScenario } from "../../sim/runner/run-scenario.ts";
import { loadScenarioFile } from "../../sim/scenario/load.ts";
import { getWithToken, scenarioPath, withClusterApi } from "./testing/scenario-api.ts";

const adminToken = "admin-token-0123456789";
const nodeToken = "node-a-token-0123456789";
const authenticator = new StaticTokenAuthenticator([
  { token: adminToken, user: { name: adminUserName, uid: "admin", groups: [adminGroup] } },
  { token: nodeToken, user: nodeUser("node-a") },
]);

const rfc3339Seconds = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

describe("the kubelet's stats/summary through the node proxy", () => {
  it("shows the node and its pod's claim volume with the bucket's space and inodes, for administrators only", async () => {
    await runScenario(loadScenarioFile(scenarioPath("014-kubelet-restart-keeps-fuse-csi-mounts.yaml")), {
      untilMs: 60_000,
      atEnd: (cluster) =>
        withClusterApi(
          cluster,
          async (_api, url, fetch) => {
            const answer = await getWithToken(fetch, url, "/api/v1/nodes/node-a/proxy/stats/summary", adminToken);
            assert.equal(answer.status, 200, answer.text);
            const summary = JSON.parse(answer.text) as Summary;
            assert.equal(summary.node.nodeName, "node-a");
            assert.match(summary.node.startTime, rfc3339Seconds);
            assert.equal(typeof summary.node.fs?.capacityBytes, "number");
            const pod = summary.pods.find((entry) => entry.podRef.name === "csi-s3-test-nginx");
            assert.ok(pod, answer.text);
            assert.equal(pod.podRef.namespace, "default");
            assert.notEqual(pod.podRef.uid, "");
            assert.deepEqual(
              pod.containers.map((container) => container.name),
              ["csi-s3-test-nginx"],
            );
            const [volume, ...others] = pod.volume ?? [];
            assert.equal(others.length, 0, "only the claim's volume has a filesystem of its own");
            assert.ok(volume, answer.text);
            assert.equal(volume.name, "webroot");
            assert.deepEqual(volume.pvcRef, { name: "csi-s3-pvc", namespace: "default" });
            assert.match(String(volume.time), rfc3339Seconds);
            // The simulated bucket's filesystem: 100 GiB and one inode per 16 KiB, a little of each used.
            assert.equal(volume.capacityBytes, 107374182400);
            assert.equal(volume.inodes, 6553600);
            const used = Number(volume.usedBytes);
            assert.ok(used > 0 && used < 107374182400, `used bytes: ${used}`);
            assert.ok(Number(volume.availableBytes) > 0);
            const inodesUsed = Number(volume.inodesUsed);
            assert.ok(inodesUsed >= 2 && inodesUsed < 100, `inodes used: ${inodesUsed}`);
            assert.equal(volume.inodesFree, 6553600 - inodesUsed);

            const asNode = await getWithToken(fetch, url, "/api/v1/nodes/node-a/proxy/stats/summary", nodeToken);
            assert.equal(asNode.status, 403);
            assert.match(asNode.text, /cannot get resource \\"nodes\/proxy\\"/);
          },
          authenticator,
        ),
    });
  });
});
