import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { Deployment, Pod } from "../../api/objects.ts";
import { DeploymentController } from "./deployment-controller.ts";
import { ReplicaSetController } from "./replicaset-controller.ts";
import { startWorkloadTestEnv, type WorkloadTestEnv } from "./testing/workload-test-env.ts";

const tenSecondsMs = 10_000;
const tenMinutesMs = 10 * 60_000;

type Strategy = NonNullable<Deployment["spec"]>["strategy"];

function deployment(strategy: Strategy): Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { namespace: "default", name: "web" },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: "web" } },
      ...(strategy === undefined ? {} : { strategy }),
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          containers: [{ name: "web", image: "nginx:1.25", volumeMounts: [{ name: "data", mountPath: "/data" }] }],
          volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }],
        },
      },
    },
  };
}

describe("Deployment controller", () => {
  let env: WorkloadTestEnv;
  afterEach(async () => env.stop());

  async function start(): Promise<WorkloadTestEnv> {
    env = await startWorkloadTestEnv((context) => [
      new DeploymentController(context),
      new ReplicaSetController(context),
    ]);
    return env;
  }

  async function livePods(): Promise<Pod[]> {
    return (await env.pods()).filter((pod) => pod.metadata?.deletionTimestamp === undefined);
  }

  /** Creates the Deployment and brings its first pod up; returns that pod's name. */
  async function deployFirstVersion(strategy: Strategy): Promise<string> {
    await env.api.client.deployments.create(deployment(strategy));
    await env.runFor(tenSecondsMs);
    const [first] = await env.podNames();
    await env.startPod("default", first ?? "");
    await env.runFor(tenSecondsMs);
    return first ?? "";
  }

  async function changeImage(): Promise<void> {
    await env.api.client.deployments.mutate("default", "web", (draft) => {
      const container = draft.spec?.template.spec?.containers[0];
      if (container) container.image = "nginx:1.26";
    });
    await env.runFor(tenSecondsMs);
  }

  it("creates a ReplicaSet named by the template hash, and through it the pod", async () => {
    await start();
    await env.api.client.deployments.create(deployment(undefined));
    await env.runFor(tenSecondsMs);

    const sets = (await env.api.client.replicaSets.list({ namespace: "default" })).items;
    assert.equal(sets.length, 1);
    const set = sets[0];
    const hash = set?.metadata?.labels?.["pod-template-hash"] ?? "";
    assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(set?.metadata?.name, `web-${hash}`);
    assert.deepEqual(set?.spec?.selector?.matchLabels, { app: "web", "pod-template-hash": hash });
    assert.equal(set?.metadata?.annotations?.["deployment.kubernetes.io/revision"], "1");
    const [pod] = await env.pods();
    assert.match(pod?.metadata?.name ?? "", new RegExp(`^web-${hash}-[a-z0-9]{5}$`));
    assert.equal(pod?.metadata?.labels?.["pod-template-hash"], hash);
    const texts = await env.eventTexts();
    assert.ok(texts.includes(`ScalingReplicaSet: Scaled up replica set web-${hash} to 1`), texts.join("\n"));
    assert.ok(texts.includes(`SuccessfulCreate: Created pod: ${pod?.metadata?.name}`));

    // The same template always hashes to the same name.
    await env.stop();
    await start();
    await env.api.client.deployments.create(deployment(undefined));
    await env.runFor(tenSecondsMs);
    const again = (await env.api.client.replicaSets.list({ namespace: "default" })).items;
    assert.equal(again[0]?.metadata?.name, `web-${hash}`);
  });

  for (const [label, strategy] of [
    ["maxSurge 1, maxUnavailable 0", { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } }],
    ["the default 25% / 25%", undefined],
  ] as const) {
    it(`rolls out with ${label}: the new pod exists before the old one is deleted`, async () => {
      await start();
      const oldPod = await deployFirstVersion(strategy);
      await changeImage();

      const sets = (await env.api.client.replicaSets.list({ namespace: "default" })).items;
      assert.equal(sets.length, 2);
      const live = await livePods();
      assert.equal(live.length, 2, "old and new pod side by side, both wanting the same claim");
      const newPod = live.find((pod) => pod.metadata?.name !== oldPod);
      assert.equal(newPod?.spec?.containers[0]?.image, "nginx:1.26");

      // Until the new pod is available, the old one stays.
      await env.runFor(tenMinutesMs);
      assert.equal((await livePods()).length, 2);

      await env.startPod("default", newPod?.metadata?.name ?? "", "node-b");
      await env.runFor(tenSecondsMs);
      const old = await env.api.client.pods.get("default", oldPod);
      assert.notEqual(
        old.metadata?.deletionTimestamp,
        undefined,
        "the old pod is deleted once the new one is available",
      );
      const status = (await env.api.client.deployments.get("default", "web")).status;
      assert.equal(status?.updatedReplicas, 1);
      assert.equal(status?.availableReplicas, 1);
      assert.equal(status?.conditions?.find((condition) => condition.type === "Available")?.status, "True");
    });
  }

  it("Recreate deletes the old pod and creates the new one only once the old pod object is gone", async () => {
    await start();
    const oldPod = await deployFirstVersion({ type: "Recreate" });
    await changeImage();

    const old = await env.api.client.pods.get("default", oldPod);
    assert.notEqual(old.metadata?.deletionTimestamp, undefined, "the old pod is being deleted");
    await env.runFor(tenMinutesMs);
    assert.deepEqual(await env.podNames(), [oldPod], "no new pod while the old one is Terminating");
    assert.equal((await env.api.client.replicaSets.list({ namespace: "default" })).items.length, 1);

    await env.finishDeletion("default", oldPod);
    await env.runFor(tenSecondsMs);
    const pods = await env.pods();
    assert.equal(pods.length, 1);
    assert.notEqual(pods[0]?.metadata?.name, oldPod);
    assert.equal(pods[0]?.spec?.containers[0]?.image, "nginx:1.26");
    const deploymentNow = await env.api.client.deployments.get("default", "web");
    assert.equal(deploymentNow.metadata?.annotations?.["deployment.kubernetes.io/revision"], "2");
  });
});
