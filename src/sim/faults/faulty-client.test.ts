import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WatchEvent } from "../../api/client/client.ts";
import { newTestApi, testPod } from "../../api/client/testing/test-api.ts";
import type { Pod } from "../../api/objects.ts";
import { ApiFaults } from "./api-faults.ts";

async function namespaceDefault(api: ReturnType<typeof newTestApi>): Promise<void> {
  await api.client.namespaces.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } });
}

describe("API faults through the faulty client", () => {
  it("makes every request wait the latency on the clock, and none once healed", async () => {
    const api = newTestApi();
    await namespaceDefault(api);
    const faults = new ApiFaults(api.clock);
    const client = faults.controlPlaneClient(api.client);
    faults.setLatency(5_000);
    const started = api.clock.now();
    let createdAtMs: number | undefined;
    const creating = client.pods.create(testPod("default", "web")).then(() => {
      createdAtMs = api.clock.now();
    });
    await api.clock.advanceBy(4_999);
    assert.equal(createdAtMs, undefined, "not created before the latency passed");
    assert.equal(await api.client.pods.get("default", "web").catch(() => undefined), undefined);
    await api.clock.advanceBy(1);
    await creating;
    assert.equal(createdAtMs, started + 5_000);

    faults.setLatency(0);
    const pod = await client.pods.get("default", "web");
    assert.equal(pod.metadata?.name, "web");
    assert.equal(api.clock.now(), started + 5_000, "no virtual time passes without latency");
  });

  it("fails a partitioned node's requests as Go's HTTP client does, and ends its watches", async () => {
    const api = newTestApi();
    await namespaceDefault(api);
    const faults = new ApiFaults(api.clock);
    const nodeClient = faults.nodeClient(api.client, "node-a");
    const otherNode = faults.nodeClient(api.client, "node-b");
    const events: Array<WatchEvent<Pod>> = [];
    await nodeClient.pods.watch({ resourceVersion: "0" }, (event) => events.push(event));

    faults.partition("node-a");
    assert.equal(events.at(-1)?.type, "ERROR");
    const lost = events.at(-1)?.object as { message?: string } | undefined;
    assert.match(String(lost?.message), /http2: client connection lost/);
    await assert.rejects(nodeClient.pods.get("default", "web"), {
      message:
        'Get "https://10.0.255.254:6443/api/v1/namespaces/default/pods/web": ' +
        "dial tcp 10.0.255.254:6443: connect: no route to host",
    });
    await assert.rejects(
      nodeClient.leases.update({
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { namespace: "kube-node-lease", name: "node-a" },
      }),
      {
        message:
          /^Put "https:\/\/10\.0\.255\.254:6443\/apis\/coordination\.k8s\.io\/v1\/namespaces\/kube-node-lease\/leases\/node-a"/,
      },
    );
    const seen = events.length;
    await api.client.pods.create(testPod("default", "web"));
    assert.equal(events.length, seen, "the ended watch delivers nothing more");
    assert.equal((await otherNode.pods.get("default", "web")).metadata?.name, "web", "other nodes are unaffected");

    faults.reconnect("node-a");
    assert.equal((await nodeClient.pods.get("default", "web")).metadata?.name, "web");
  });
});
