import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { KubeletTestEnv } from "../testing/kubelet-test-env.ts";
import type { PluginRegistrationHandler } from "./plugin-watcher.ts";

const registrySocket = "/var/lib/kubelet/plugins_registry/hostpath.csi.k8s.io-reg.sock";

describe("Node agent: Lease, CSINode and plugin registration", () => {
  const envs: KubeletTestEnv[] = [];
  afterEach(async () => {
    for (const env of envs.splice(0)) await env.stop();
  });

  it("renews its Lease every 10 s, owned by the Node, and stops when the kubelet stops", async () => {
    const env = await KubeletTestEnv.start();
    envs.push(env);
    await env.runFor(30_000);
    const node = await env.client.nodes.get("", "node-1");
    const lease = await env.client.leases.get("kube-node-lease", "node-1");
    assert.equal(lease.spec?.holderIdentity, "node-1");
    assert.equal(lease.spec?.leaseDurationSeconds, 40);
    assert.equal(lease.spec?.renewTime, "2026-01-01T00:00:30.000000Z");
    assert.equal(lease.metadata?.ownerReferences?.[0]?.uid, node.metadata?.uid);

    await env.stopKubelet();
    await env.runFor(60_000);
    assert.equal(
      (await env.client.leases.get("kube-node-lease", "node-1")).spec?.renewTime,
      "2026-01-01T00:00:30.000000Z",
    );
  });

  it("creates its CSINode without drivers, owned by the Node", async () => {
    const env = await KubeletTestEnv.start();
    envs.push(env);
    await env.runFor(0);
    const node = await env.client.nodes.get("", "node-1");
    const csiNode = await env.client.csiNodes.get("", "node-1");
    assert.deepEqual(csiNode.spec?.drivers, []);
    assert.equal(csiNode.metadata?.ownerReferences?.[0]?.uid, node.metadata?.uid);
  });

  it("hands a registration socket to the handler, which registers the driver in the CSINode", async () => {
    const seen: string[] = [];
    let env: KubeletTestEnv | undefined;
    const handler: PluginRegistrationHandler = {
      async register(socketPath) {
        seen.push(`register ${socketPath}`);
        await env?.kubelet.csiNodeInfo.installDriver({
          driverName: "hostpath.csi.k8s.io",
          nodeId: "node-1",
          topology: { "topology.hostpath.csi/node": "node-1" },
        });
      },
      async deregister(socketPath) {
        seen.push(`deregister ${socketPath}`);
        await env?.kubelet.csiNodeInfo.uninstallDriver("hostpath.csi.k8s.io");
      },
    };
    env = await KubeletTestEnv.start({ kubelet: { pluginRegistrationHandler: handler } });
    envs.push(env);
    await env.host.writeFile(registrySocket, "");
    await env.runFor(1_000);
    assert.deepEqual(seen, [`register ${registrySocket}`]);
    const csiNode = await env.client.csiNodes.get("", "node-1");
    assert.deepEqual(csiNode.spec?.drivers, [
      { name: "hostpath.csi.k8s.io", nodeID: "node-1", topologyKeys: ["topology.hostpath.csi/node"] },
    ]);
    const node = await env.client.nodes.get("", "node-1");
    assert.equal(node.metadata?.annotations?.["csi.volume.kubernetes.io/nodeid"], '{"hostpath.csi.k8s.io":"node-1"}');
    assert.equal(node.metadata?.labels?.["topology.hostpath.csi/node"], "node-1");

    await env.host.unlink(registrySocket);
    await env.runFor(1_000);
    assert.deepEqual(seen.at(-1), `deregister ${registrySocket}`);
    assert.deepEqual((await env.client.csiNodes.get("", "node-1")).spec?.drivers, []);
  });
});
