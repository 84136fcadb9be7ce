/**
 * The kubelet's Prometheus metrics through the API server (`nodes/<node>/proxy/metrics`), as
 * `kubectl get --raw` reads them: on seed 002 (NFS without its mount helper) at 1m30s, each of the
 * two pods' mounts has failed eight times (storage_operation_duration_seconds with upstream's
 * `fail-unknown` status) and both volumes are wanted but none is mounted.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StaticTokenAuthenticator } from "../../apiserver/auth/token-authenticator.ts";
import { adminGroup, adminUserName, nodeUser } from "../../apiserver/auth/user-info.ts";
import { runScenario } from "../../sim/runner/run-scenario.ts";
import { loadScenarioFile } from "../../sim/scenario/load.ts";
import { getWithToken, scenarioPath, withClusterApi } from "./testing/scenario-api.ts";

const adminToken = "admin-token-0123456789";
const nodeToken = "node1-token-0123456789";
const authenticator = new StaticTokenAuthenticator([
  { token: adminToken, user: { name: adminUserName, uid: "admin", groups: [adminGroup] } },
  { token: nodeToken, user: nodeUser("node1") },
]);

describe("the kubelet's /metrics through the node proxy", () => {
  it("counts seed 002's failed NFS mounts and the volumes wanted but not mounted, for administrators only", async () => {
    await runScenario(loadScenarioFile(scenarioPath("002-nfs-helper-missing.yaml")), {
      untilMs: 90_000,
      atEnd: (cluster) =>
        withClusterApi(
          cluster,
          async (_api, url, fetch) => {
            const metrics = await getWithToken(fetch, url, "/api/v1/nodes/node1/proxy/metrics", adminToken);
            assert.equal(metrics.status, 200);
            assert.match(metrics.text, /^# TYPE storage_operation_duration_seconds histogram$/m);
            assert.match(
              metrics.text,
              /^storage_operation_duration_seconds_count\{volume_plugin="kubernetes\.io\/nfs",operation_name="volume_mount",status="fail-unknown",migrated="false"\} 16$/m,
            );
            assert.doesNotMatch(metrics.text, /operation_name="volume_mount",status="success"/);
            assert.match(
              metrics.text,
              /^volume_manager_total_volumes\{plugin_name="kubernetes\.io\/nfs",state="desired_state_of_world"\} 2$/m,
            );
            assert.doesNotMatch(metrics.text, /state="actual_state_of_world"/);

            const asNode = await getWithToken(fetch, url, "/api/v1/nodes/node1/proxy/metrics", nodeToken);
            assert.equal(asNode.status, 403);
            assert.match(asNode.text, /cannot get resource \\"nodes\/proxy\\"/);
          },
          authenticator,
        ),
    });
  });

  it("shows a Running pod's CSI volume once in each state of the world, mounted once with success, with its claim's space", async () => {
    await runScenario(loadScenarioFile(scenarioPath("014-kubelet-restart-keeps-fuse-csi-mounts.yaml")), {
      untilMs: 60_000,
      atEnd: (cluster) =>
        withClusterApi(
          cluster,
          async (_api, url, fetch) => {
            const pod = await getWithToken(fetch, url, "/api/v1/namespaces/default/pods/csi-s3-test-nginx", adminToken);
            assert.equal((JSON.parse(pod.text) as { status?: { phase?: string } }).status?.phase, "Running");
            const metrics = await getWithToken(fetch, url, "/api/v1/nodes/node-a/proxy/metrics", adminToken);
            assert.equal(metrics.status, 200);
            assert.match(
              metrics.text,
              /^volume_manager_total_volumes\{plugin_name="kubernetes\.io\/csi:fuse\.csi\.kvol\.io",state="desired_state_of_world"\} 1$/m,
            );
            assert.match(
              metrics.text,
              /^volume_manager_total_volumes\{plugin_name="kubernetes\.io\/csi:fuse\.csi\.kvol\.io",state="actual_state_of_world"\} 1$/m,
            );
            assert.match(
              metrics.text,
              /^storage_operation_duration_seconds_count\{volume_plugin="kubernetes\.io\/csi:fuse\.csi\.kvol\.io",operation_name="volume_mount",status="success",migrated="false"\} 1$/m,
            );
            assert.doesNotMatch(metrics.text, /status="fail-unknown"/);
            // The simulated bucket's filesystem: 100 GiB, a little of it used by the pod's content.
            assert.match(
              metrics.text,
              /^kubelet_volume_stats_capacity_bytes\{namespace="default",persistentvolumeclaim="csi-s3-pvc"\} 107374182400$/m,
            );
            assert.match(
              metrics.text,
              /^kubelet_volume_stats_used_bytes\{namespace="default",persistentvolumeclaim="csi-s3-pvc"\} [1-9]\d*$/m,
            );
            assert.match(
              metrics.text,
              /^kubelet_volume_stats_available_bytes\{namespace="default",persistentvolumeclaim="csi-s3-pvc"\} [1-9]\d*$/m,
            );
            // One inode per 16 KiB, as a fresh ext4 has: 6,553,600 in 100 GiB, a few used by the pod's files.
            assert.match(
              metrics.text,
              /^kubelet_volume_stats_inodes\{namespace="default",persistentvolumeclaim="csi-s3-pvc"\} 6553600$/m,
            );
            const inodesUsed = Number(
              /^kubelet_volume_stats_inodes_used\{namespace="default",persistentvolumeclaim="csi-s3-pvc"\} (\d+)$/m.exec(
                metrics.text,
              )?.[1],
            );
            assert.ok(inodesUsed >= 2 && inodesUsed < 100, `inodes used: ${inodesUsed}`);
            assert.match(
              metrics.text,
              new RegExp(
                `^kubelet_volume_stats_inodes_free\\{namespace="default",persistentvolumeclaim="csi-s3-pvc"\\} ${6553600 - inodesUsed}$`,
                "m",
              ),
            );
          },
          authenticator,
        ),
    });
  });
});
