/**
 * The components' hidden state over the API, on seed 002 (NFS without its mount helper) at 1m30s:
 * the kubelet's failed mounts with their backoff through `nodes/<node>/proxy/debug/volumemanager`,
 * the controllers' states under `/debug/controllers/`, and who may read them.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AttachDetachControllerDebugState, KubeletVolumeManagerDebugState } from "../../api/debug/debug-state.ts";
import { StaticTokenAuthenticator } from "../../apiserver/auth/token-authenticator.ts";
import { adminGroup, adminUserName, nodeUser } from "../../apiserver/auth/user-info.ts";
import { runScenario } from "../../sim/runner/run-scenario.ts";
import { loadScenarioFile } from "../../sim/scenario/load.ts";
import { scenarioPath, withClusterApi } from "./testing/scenario-api.ts";

type FetchFunction = (input: string, init?: RequestInit) => Promise<Response>;

const adminToken = "admin-token-0123456789";
const nodeToken = "node1-token-0123456789";
const authenticator = new StaticTokenAuthenticator([
  { token: adminToken, user: { name: adminUserName, uid: "admin", groups: [adminGroup] } },
  { token: nodeToken, user: nodeUser("node1") },
]);

async function get(
  url: string,
  path: string,
  token: string,
  fetch: FetchFunction,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("debug endpoints", () => {
  it("show the kubelet's backing-off mounts and the controllers' states to an administrator only", async () => {
    const scenario = loadScenarioFile(scenarioPath("002-nfs-helper-missing.yaml"));
    await runScenario(scenario, {
      untilMs: 90_000,
      atEnd: (cluster) =>
        withClusterApi(
          cluster,
          async (_api, url, fetch) => {
            const kubelet = await get(url, "/api/v1/nodes/node1/proxy/debug/volumemanager", adminToken, fetch);
            assert.equal(kubelet.status, 200);
            const state = kubelet.body as unknown as KubeletVolumeManagerDebugState;
            assert.equal(state.nodeName, "node1");
            assert.equal(state.desiredStateOfWorld.length, 2);
            assert.equal(state.operations.length, 2);
            for (const operation of state.operations) {
              assert.equal(operation.operationName, "volume_mount");
              assert.equal(operation.running, false);
              assert.match(operation.lastError ?? "", /mount failed: exit status 32/);
              // The eighth failure in a row: 500ms doubled seven times.
              assert.equal(operation.durationBeforeRetry, "1m4s");
            }

            const adc = await get(url, "/debug/controllers/attachdetach-controller", adminToken, fetch);
            assert.equal(adc.status, 200);
            const adcState = adc.body as unknown as AttachDetachControllerDebugState;
            assert.equal(adcState.maxWaitForUnmountDuration, "6m0s");
            assert.deepEqual(adcState.actualStateOfWorld, []);
            const pv = await get(url, "/debug/controllers/persistentvolume-controller", adminToken, fetch);
            assert.equal(pv.status, 200);
            assert.equal(pv.body.kind, "PersistentVolumeControllerState");

            const unknown = await get(url, "/debug/controllers/no-such-controller", adminToken, fetch);
            assert.equal(unknown.status, 404);
            assert.match(String(unknown.body.message), /no controller "no-such-controller"/);

            const asNode = await get(url, "/api/v1/nodes/node1/proxy/debug/volumemanager", nodeToken, fetch);
            assert.equal(asNode.status, 403);
            assert.equal(
              asNode.body.message,
              'nodes "node1" is forbidden: User "system:node:node1" cannot get resource "nodes/proxy" in API group "" at the cluster scope',
            );
            const controllersAsNode = await get(url, "/debug/controllers/attachdetach-controller", nodeToken, fetch);
            assert.equal(controllersAsNode.status, 403);
            assert.equal(
              controllersAsNode.body.message,
              'forbidden: User "system:node:node1" cannot get path "/debug/controllers/attachdetach-controller"',
            );
            const missingNode = await get(url, "/api/v1/nodes/node9/proxy/debug/volumemanager", adminToken, fetch);
            assert.equal(missingNode.status, 404);
            assert.equal(missingNode.body.message, 'nodes "node9" not found');
          },
          authenticator,
        ),
    });
  });
});
