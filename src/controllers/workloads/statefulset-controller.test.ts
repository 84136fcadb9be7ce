import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { StatefulSet } from "../../api/objects.ts";
import { StatefulSetController } from "./statefulset-controller.ts";
import { startWorkloadTestEnv, type WorkloadTestEnv } from "./testing/workload-test-env.ts";

const oneMinuteMs = 60_000;

function webSet(replicas: number, options: { parallel?: boolean } = {}): StatefulSet {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { namespace: "default", name: "web" },
    spec: {
      replicas,
      serviceName: "nginx",
      selector: { matchLabels: { app: "nginx" } },
      ...(options.parallel ? { podManagementPolicy: "Parallel" } : {}),
      template: {
        metadata: { labels: { app: "nginx" } },
        spec: {
          containers: [
            { name: "nginx", image: "nginx", volumeMounts: [{ name: "www", mountPath: "/usr/share/nginx/html" }] },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: "www" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
        },
      ],
    },
  };
}

describe("StatefulSet controller", () => {
  let env: WorkloadTestEnv;
  afterEach(async () => env.stop());

  async function start(): Promise<WorkloadTestEnv> {
    env = await startWorkloadTestEnv((context) => [new StatefulSetController(context)]);
    return env;
  }

  async function claimNames(): Promise<string[]> {
    const claims = await env.api.client.persistentVolumeClaims.list({ namespace: "default" });
    return claims.items.map((claim) => claim.metadata?.name ?? "").sort();
  }

  it("creates web-0 and its claim, and web-1 only once web-0 is Running and Ready", async () => {
    await start();
    await env.api.client.statefulSets.create(webSet(2));
    await env.runFor(oneMinuteMs);

    assert.deepEqual(await env.podNames(), ["web-0"]);
    assert.deepEqual(await claimNames(), ["www-web-0"]);
    assert.deepEqual(await env.eventTexts(), [
      "SuccessfulCreate: create Claim www-web-0 Pod web-0 in StatefulSet web success",
      "SuccessfulCreate: create Pod web-0 in StatefulSet web successful",
    ]);
    const web0 = await env.api.client.pods.get("default", "web-0");
    const set = await env.api.client.statefulSets.get("default", "web");
    assert.equal(web0.metadata?.labels?.["statefulset.kubernetes.io/pod-name"], "web-0");
    assert.equal(web0.metadata?.labels?.["apps.kubernetes.io/pod-index"], "0");
    assert.equal(web0.metadata?.labels?.app, "nginx");
    assert.equal(web0.spec?.hostname, "web-0");
    assert.equal(web0.spec?.subdomain, "nginx");
    assert.deepEqual(web0.spec?.volumes, [{ name: "www", persistentVolumeClaim: { claimName: "www-web-0" } }]);
    assert.deepEqual(web0.metadata?.ownerReferences, [
      {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        name: "web",
        uid: set.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const claim = await env.api.client.persistentVolumeClaims.get("default", "www-web-0");
    assert.equal(claim.metadata?.ownerReferences, undefined, "claims outlive their pods (Retain)");
    assert.equal(claim.metadata?.labels?.app, "nginx");

    await env.startPod("default", "web-0");
    await env.runFor(oneMinuteMs);
    assert.deepEqual(await env.podNames(), ["web-0", "web-1"]);
    assert.deepEqual(await claimNames(), ["www-web-0", "www-web-1"]);

    await env.startPod("default", "web-1");
    await env.runFor(oneMinuteMs);
    const status = (await env.api.client.statefulSets.get("default", "web")).status;
    assert.equal(status?.replicas, 2);
    assert.equal(status?.readyReplicas, 2);
    assert.equal(status?.currentReplicas, 2);
    assert.equal(status?.updatedReplicas, 2);
    assert.equal(status?.observedGeneration, 1);
  });

  it("does not replace a pod stuck Terminating; once it is gone, recreates it with the same name and claim", async () => {
    await start();
    await env.api.client.statefulSets.create(webSet(2));
    await env.runFor(oneMinuteMs);
    await env.startPod("default", "web-0");
    await env.runFor(oneMinuteMs);
    await env.startPod("default", "web-1");
    await env.runFor(oneMinuteMs);
    const oldWeb0 = await env.api.client.pods.get("default", "web-0");
    const claimUid = (await env.api.client.persistentVolumeClaims.get("default", "www-web-0")).metadata?.uid;

    // The node holding web-0 is gone: the deletion starts, and nobody ever finishes it.
    await env.api.client.pods.delete("default", "web-0");
    await env.runFor(10 * oneMinuteMs);
    const stuck = await env.api.client.pods.get("default", "web-0");
    assert.equal(stuck.metadata?.uid, oldWeb0.metadata?.uid, "the old pod object is still there");
    assert.notEqual(stuck.metadata?.deletionTimestamp, undefined);
    assert.deepEqual(await env.podNames(), ["web-0", "web-1"]);

    // `kubectl delete pod web-0 --grace-period=0 --force`
    await env.finishDeletion("default", "web-0");
    await env.runFor(oneMinuteMs);
    const replacement = await env.api.client.pods.get("default", "web-0");
    assert.notEqual(replacement.metadata?.uid, oldWeb0.metadata?.uid);
    assert.equal(replacement.metadata?.deletionTimestamp, undefined);
    assert.deepEqual(replacement.spec?.volumes, [{ name: "www", persistentVolumeClaim: { claimName: "www-web-0" } }]);
    assert.deepEqual(await claimNames(), ["www-web-0", "www-web-1"]);
    const claim = await env.api.client.persistentVolumeClaims.get("default", "www-web-0");
    assert.equal(claim.metadata?.uid, claimUid, "the same claim is reused, not recreated");
  });

  it("reuses a claim that already exists without creating it", async () => {
    await start();
    const template = webSet(1).spec?.volumeClaimTemplates?.[0];
    await env.api.client.persistentVolumeClaims.create({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { namespace: "default", name: "www-web-0" },
      spec: template?.spec ?? {},
    });
    await env.api.client.statefulSets.create(webSet(1));
    await env.runFor(oneMinuteMs);
    assert.deepEqual(await env.podNames(), ["web-0"]);
    assert.deepEqual(await env.eventTexts(), ["SuccessfulCreate: create Pod web-0 in StatefulSet web successful"]);
  });

  it("creates every pod at once with Parallel pod management", async () => {
    await start();
    await env.api.client.statefulSets.create(webSet(3, { parallel: true }));
    await env.runFor(oneMinuteMs);
    assert.deepEqual(await env.podNames(), ["web-0", "web-1", "web-2"]);
    assert.deepEqual(await claimNames(), ["www-web-0", "www-web-1", "www-web-2"]);
  });

  it("scales down from the highest ordinal, one pod at a time, and keeps the claims", async () => {
    await start();
    await env.api.client.statefulSets.create(webSet(3));
    for (const name of ["web-0", "web-1", "web-2"]) {
      await env.runFor(oneMinuteMs);
      await env.startPod("default", name);
    }
    await env.runFor(oneMinuteMs);
    await env.api.client.statefulSets.mutate("default", "web", (draft) => {
      if (draft.spec) draft.spec.replicas = 1;
    });
    await env.runFor(oneMinuteMs);
    const web2 = await env.api.client.pods.get("default", "web-2");
    assert.notEqual(web2.metadata?.deletionTimestamp, undefined, "web-2 goes first");
    const web1 = await env.api.client.pods.get("default", "web-1");
    assert.equal(web1.metadata?.deletionTimestamp, undefined, "web-1 waits until web-2 is gone");

    await env.finishDeletion("default", "web-2");
    await env.runFor(oneMinuteMs);
    await env.finishDeletion("default", "web-1");
    await env.runFor(oneMinuteMs);
    assert.deepEqual(await env.podNames(), ["web-0"]);
    assert.deepEqual(await claimNames(), ["www-web-0", "www-web-1", "www-web-2"]);
    const texts = await env.eventTexts();
    assert.ok(texts.includes("SuccessfulDelete: delete Pod web-2 in StatefulSet web successful"));
    assert.ok(
      texts.indexOf("SuccessfulDelete: delete Pod web-2 in StatefulSet web successful") <
        texts.indexOf("SuccessfulDelete: delete Pod web-1 in StatefulSet web successful"),
    );
  });

  it("deletes a failed pod and creates it again", async () => {
    await start();
    await env.api.client.statefulSets.create(webSet(1));
    await env.runFor(oneMinuteMs);
    const first = await env.startPod("default", "web-0");
    await env.api.client.pods.mutate(
      "default",
      "web-0",
      (draft) => {
        draft.status = { ...draft.status, phase: "Failed", conditions: [] };
      },
      { subresource: "status" },
    );
    await env.runFor(oneMinuteMs);
    const second = await env.api.client.pods.get("default", "web-0");
    assert.notEqual(second.metadata?.uid, first.metadata?.uid);
    assert.ok(
      (await env.eventTexts()).includes("RecreatingFailedPod: StatefulSet default/web is recreating failed Pod web-0"),
    );
  });

  it("rolls a new template out from the highest ordinal down, one healthy pod at a time", async () => {
    await start();
    await env.api.client.statefulSets.create(webSet(2));
    for (const name of ["web-0", "web-1"]) {
      await env.runFor(oneMinuteMs);
      await env.startPod("default", name);
    }
    await env.runFor(oneMinuteMs);
    const before = (await env.api.client.statefulSets.get("default", "web")).status?.currentRevision;
    await env.api.client.statefulSets.mutate("default", "web", (draft) => {
      const container = draft.spec?.template.spec?.containers[0];
      if (container) container.image = "nginx:1.26";
    });
    await env.runFor(oneMinuteMs);
    assert.notEqual((await env.api.client.pods.get("default", "web-1")).metadata?.deletionTimestamp, undefined);
    assert.equal((await env.api.client.pods.get("default", "web-0")).metadata?.deletionTimestamp, undefined);

    await env.finishDeletion("default", "web-1");
    await env.runFor(oneMinuteMs);
    assert.equal((await env.api.client.pods.get("default", "web-1")).spec?.containers[0]?.image, "nginx:1.26");
    assert.equal(
      (await env.api.client.pods.get("default", "web-0")).metadata?.deletionTimestamp,
      undefined,
      "waits for web-1 to be Ready",
    );
    await env.startPod("default", "web-1");
    await env.runFor(oneMinuteMs);
    assert.notEqual((await env.api.client.pods.get("default", "web-0")).metadata?.deletionTimestamp, undefined);

    await env.finishDeletion("default", "web-0");
    await env.runFor(oneMinuteMs);
    await env.startPod("default", "web-0");
    await env.runFor(oneMinuteMs);
    const status = (await env.api.client.statefulSets.get("default", "web")).status;
    assert.notEqual(status?.currentRevision, before);
    assert.equal(status?.currentRevision, status?.updateRevision);
    assert.equal(status?.updatedReplicas, 2);
  });
});
