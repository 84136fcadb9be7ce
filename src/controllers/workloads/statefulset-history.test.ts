import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { ControllerRevision, StatefulSet } from "../../api/objects.ts";
import { StatefulSetController } from "./statefulset-controller.ts";
import { startWorkloadTestEnv, type WorkloadTestEnv } from "./testing/workload-test-env.ts";

function webSet(image: string): StatefulSet {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { namespace: "default", name: "web" },
    spec: {
      replicas: 1,
      serviceName: "nginx",
      selector: { matchLabels: { app: "nginx" } },
      template: { metadata: { labels: { app: "nginx" } }, spec: { containers: [{ name: "nginx", image }] } },
    },
  };
}

describe("StatefulSet history (ControllerRevisions)", () => {
  let env: WorkloadTestEnv;
  beforeEach(async () => {
    env = await startWorkloadTestEnv((context) => [new StatefulSetController(context)]);
  });
  afterEach(() => env.stop());

  async function revisions(): Promise<ControllerRevision[]> {
    const list = await env.api.client.resource("ControllerRevision").list({ namespace: "default" });
    return [...list.items].sort((a, b) => a.revision - b.revision);
  }

  async function setImage(image: string): Promise<void> {
    await env.api.client.statefulSets.mutate("default", "web", (draft) => {
      const container = draft.spec?.template.spec?.containers[0];
      if (container !== undefined) container.image = image;
    });
    await env.runFor(1_000);
  }

  it("records revision 1 named like the pods' controller-revision-hash, then revision 2 for a new template", async () => {
    await env.api.client.statefulSets.create(webSet("nginx:1.25"));
    await env.runFor(1_000);
    const [first] = await revisions();
    assert.ok(first !== undefined);
    assert.equal(first.revision, 1);
    const [pod] = await env.pods();
    assert.equal(first.metadata?.name, pod?.metadata?.labels?.["controller-revision-hash"]);
    assert.match(first.metadata?.name ?? "", /^web-/);
    assert.equal(first.metadata?.labels?.app, "nginx");
    assert.equal(first.metadata?.ownerReferences?.[0]?.kind, "StatefulSet");
    assert.deepEqual((first.data as { spec: { template: { $patch: string } } }).spec.template.$patch, "replace");
    await setImage("nginx:1.26");
    const after = await revisions();
    assert.deepEqual(
      after.map((r) => r.revision),
      [1, 2],
    );
    const set = await env.api.client.statefulSets.get("default", "web");
    assert.equal(set.status?.updateRevision, after[1]?.metadata?.name);
  });

  it("renumbers an earlier revision as the newest when the set goes back to its template (rollout undo)", async () => {
    await env.api.client.statefulSets.create(webSet("nginx:1.25"));
    await env.runFor(1_000);
    await setImage("nginx:1.26");
    await setImage("nginx:1.25");
    const after = await revisions();
    assert.equal(after.length, 2, "no copy of the earlier template");
    assert.equal(after.at(-1)?.revision, 3);
    assert.equal(after.at(-1)?.metadata?.name, after.find((r) => r.revision === 3)?.metadata?.name);
    const set = await env.api.client.statefulSets.get("default", "web");
    assert.equal(set.status?.updateRevision, after.at(-1)?.metadata?.name);
  });
});
