import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clusterPerTest } from "../sim/testing/clusters.ts";
import { claimYaml, storageClassYaml, webDeploymentYaml, webStatefulSetYaml } from "../sim/testing/manifests.ts";
import type { Cluster } from "./cluster.ts";

const oneMinuteMs = 60_000;

const storageClass = storageClassYaml();
const webDeployment = webDeploymentYaml();

describe("Cluster", () => {
  const start = clusterPerTest();

  async function podPhase(cluster: Cluster, name: string): Promise<string | undefined> {
    return (await cluster.tryGet("Pod", "default", name))?.status?.phase;
  }

  it("applies YAML manifests and, applied again, merges them into what is stored", async () => {
    const cluster = await start({ controllers: [] });
    const applied = await cluster.apply(`${storageClass}---\n${webDeployment}`);
    assert.deepEqual(
      applied.map((object) => `${object.kind} ${object.metadata?.namespace ?? ""}/${object.metadata?.name}`),
      ["StorageClass /standard", "Deployment default/web"],
    );
    await cluster.client.deployments.mutate("default", "web", (draft) => {
      draft.metadata = { ...draft.metadata, annotations: { owner: "team-a" } };
    });
    await cluster.apply(webDeploymentYaml({ replicas: 3 }));
    const deployment = await cluster.get("Deployment", "default", "web");
    assert.equal(deployment.spec?.replicas, 3);
    assert.equal(deployment.metadata?.annotations?.owner, "team-a", "fields the manifest does not name are kept");
    await assert.rejects(
      cluster.apply({ apiVersion: "v1", kind: "Widget", metadata: { name: "x" } }),
      /kind "Widget" is not one kvol stores/,
    );
  });

  it("registers nodes that renew their Lease until their heartbeat stops", async () => {
    const cluster = await start({ controllers: [] });
    await cluster.addNode("node-a", {
      zone: "zone-1",
      taints: [{ key: "dedicated", value: "db", effect: "NoSchedule" }],
    });
    const node = await cluster.get("Node", "", "node-a");
    assert.equal(node.metadata?.labels?.["kubernetes.io/hostname"], "node-a");
    assert.equal(node.metadata?.labels?.["topology.kubernetes.io/zone"], "zone-1");
    assert.deepEqual(node.spec?.taints, [{ key: "dedicated", value: "db", effect: "NoSchedule" }]);
    assert.equal(node.status?.conditions?.find((condition) => condition.type === "Ready")?.status, "True");

    await cluster.runFor(30_000);
    const lease = await cluster.get("Lease", "kube-node-lease", "node-a");
    assert.equal(lease.spec?.holderIdentity, "node-a");
    assert.equal(lease.spec?.leaseDurationSeconds, 40);
    assert.equal(lease.spec?.renewTime, "2026-01-01T00:00:30.000000Z");
    assert.equal(lease.metadata?.ownerReferences?.[0]?.uid, node.metadata?.uid);

    cluster.stopHeartbeat("node-a");
    await cluster.runFor(5 * oneMinuteMs);
    const stale = await cluster.get("Lease", "kube-node-lease", "node-a");
    assert.equal(stale.spec?.renewTime, "2026-01-01T00:00:30.000000Z", "a powered-off node renews nothing");
    cluster.startHeartbeat("node-a");
    await cluster.runFor(0);
    assert.equal(
      (await cluster.get("Lease", "kube-node-lease", "node-a")).spec?.renewTime,
      "2026-01-01T00:05:30.000000Z",
    );
  });

  it("runs until a condition holds, or says which did not within the timeout", async () => {
    const cluster = await start({ controllers: [] });
    await cluster.addNode("node-a");
    const tookMs = await cluster.runUntil(
      async () => (await cluster.tryGet("Lease", "kube-node-lease", "node-a")) !== undefined,
    );
    assert.equal(tookMs, 0);
    await assert.rejects(
      cluster.runUntil(() => false, { timeoutMs: 5_000, description: "the impossible" }),
      /runUntil: the impossible did not hold within 5000 ms of virtual time/,
    );
  });

  it("gives the same sequence of writes for the same seed, and another for another seed", async () => {
    async function scenario(seed: number): Promise<string[]> {
      const cluster = await start({ seed, recordWrites: true, standInKubelet: true });
      await cluster.addNode("node-a", { zone: "zone-1" });
      await cluster.addNode("node-b", { zone: "zone-1" });
      await cluster.apply(webDeploymentYaml({ replicas: 3 }));
      await cluster.runFor(2 * oneMinuteMs);
      const writes = cluster.writes().map((write) => `${write.revision} ${write.verb} ${write.kind} ${write.key}`);
      await cluster.stop();
      return writes;
    }
    const first = await scenario(7);
    assert.ok(
      first.some((line) => / create Pod default\/web-[a-z0-9]+-[a-z0-9]{5}$/.test(line)),
      first.join("\n"),
    );
    assert.deepEqual(await scenario(7), first);
    assert.notDeepEqual(await scenario(8), first);
  });

  it("a StatefulSet pod stuck Terminating on a powered-off node is never replaced", async () => {
    const cluster = await start({ standInKubelet: true });
    await cluster.addNode("node-a", { zone: "zone-1" });
    await cluster.apply(`${storageClass}---\n${webStatefulSetYaml({ replicas: 2 })}`);
    await cluster.runUntil(async () => (await podPhase(cluster, "web-1")) === "Running", {
      description: "web-1 running",
    });
    const events = await cluster.events({ kind: "StatefulSet", name: "web" });
    assert.deepEqual(
      events.map((event) => event.message),
      [
        "create Claim www-web-0 Pod web-0 in StatefulSet web success",
        "create Pod web-0 in StatefulSet web successful",
        "create Claim www-web-1 Pod web-1 in StatefulSet web success",
        "create Pod web-1 in StatefulSet web successful",
      ],
    );

    const web0 = await cluster.get("Pod", "default", "web-0");
    cluster.stopHeartbeat("node-a");
    await cluster.delete("Pod", "default", "web-0");
    await cluster.runFor(10 * oneMinuteMs);
    const stuck = await cluster.get("Pod", "default", "web-0");
    assert.equal(stuck.metadata?.uid, web0.metadata?.uid);
    assert.notEqual(stuck.metadata?.deletionTimestamp, undefined);

    cluster.startHeartbeat("node-a");
    await cluster.runUntil(async () => {
      const pod = await cluster.tryGet("Pod", "default", "web-0");
      return pod !== undefined && pod.metadata?.uid !== web0.metadata?.uid && pod.status?.phase === "Running";
    });
    const replacement = await cluster.get("Pod", "default", "web-0");
    assert.deepEqual(replacement.spec?.volumes?.[0], {
      name: "www",
      persistentVolumeClaim: { claimName: "www-web-0" },
    });
  });

  for (const strategy of ["RollingUpdate", "Recreate"] as const) {
    it(`a ${strategy} rollout of a Deployment using an RWO claim ${strategy === "Recreate" ? "never runs" : "runs"} two pods on it at once`, async () => {
      const cluster = await start({ standInKubelet: true });
      await cluster.addNode("node-a", { zone: "zone-1" });
      await cluster.addNode("node-b", { zone: "zone-1" });
      const deployment = { strategy, claimName: "data" };
      await cluster.apply([storageClass, claimYaml("data"), webDeploymentYaml(deployment)].join("---\n"));
      const livePods = async () =>
        (await cluster.list("Pod", { namespace: "default" })).filter(
          (pod) => pod.metadata?.deletionTimestamp === undefined,
        );
      await cluster.runUntil(async () => (await livePods()).some((pod) => pod.status?.phase === "Running"));

      await cluster.apply(webDeploymentYaml({ ...deployment, image: "nginx:1.26" }));
      let mostAtOnce = 0;
      await cluster.runUntil(async () => {
        const pods = await cluster.list("Pod", { namespace: "default" });
        mostAtOnce = Math.max(mostAtOnce, pods.length);
        return (
          pods.length === 1 &&
          pods[0]?.spec?.containers[0]?.image === "nginx:1.26" &&
          pods[0].status?.phase === "Running"
        );
      });
      assert.equal(mostAtOnce, strategy === "Recreate" ? 1 : 2);
    });
  }
});
