import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { testPod } from "../api/client/testing/test-api.ts";
import { SharedInformerFactory } from "../api/informer/shared-informer-factory.ts";
import { DEFAULT_TIMERS } from "../api/timers.ts";
import { GarbageCollector } from "../controllers/workloads/garbage-collector.ts";
import { Logger, MemorySink } from "../runtime/logger.ts";
import { Rng } from "../runtime/rng.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

const pods = "/api/v1/namespaces/default/pods";
const replicaSets = "/apis/apps/v1/namespaces/default/replicasets";
const waitLimitMs = 10_000;
const pollIntervalMs = 20;

type Json = Record<string, unknown>;

function replicaSet(name: string): Json {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "main", image: "busybox" }] } },
    },
  };
}

function metadataOf(body: Json): {
  uid?: string;
  finalizers?: string[];
  deletionTimestamp?: string;
  ownerReferences?: Json[];
} {
  return body.metadata as { uid?: string; finalizers?: string[]; deletionTimestamp?: string; ownerReferences?: Json[] };
}

describe("DELETE with propagationPolicy, through the HTTP server and the garbage collector", () => {
  let t: TestServer;
  let collector: GarbageCollector;
  let informers: SharedInformerFactory;

  beforeEach(async () => {
    t = await startTestServer();
    const rng = new Rng(7);
    const logger = new Logger({ clock: t.wallClock, sink: new MemorySink(), level: "info" });
    informers = new SharedInformerFactory(t.client, t.wallClock, { resyncPeriodMs: 0, rng, logger });
    collector = new GarbageCollector({
      client: t.client,
      informers,
      clock: t.wallClock,
      rng,
      logger,
      timers: DEFAULT_TIMERS,
    });
    collector.start();
    informers.start();
  });
  afterEach(async () => {
    await collector.stop();
    informers.stop();
    await t.close();
  });

  async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
    for (let waited = 0; waited < waitLimitMs; waited += pollIntervalMs) {
      if (await check()) return;
      await t.wallClock.sleep(pollIntervalMs);
    }
    assert.fail(`timed out waiting until ${what}`);
  }

  async function exists(path: string): Promise<boolean> {
    return (await t.call("GET", path)).status === 200;
  }

  /** A ReplicaSet owning two unscheduled pods, as its controller would have made them. */
  async function ownerWithPods(name: string): Promise<string> {
    const owner = await t.call("POST", replicaSets, replicaSet(name));
    assert.equal(owner.status, 201, JSON.stringify(owner.body));
    const uid = metadataOf(owner.body).uid as string;
    for (const index of [0, 1]) {
      const pod = testPod("default", `${name}-${index}`);
      const ownerReferences = [
        { apiVersion: "apps/v1", kind: "ReplicaSet", name, uid, controller: true, blockOwnerDeletion: true },
      ];
      const created = await t.call("POST", pods, { ...pod, metadata: { ...pod.metadata, ownerReferences } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    return uid;
  }

  it("Foreground keeps the owner, with its finalizer, until its dependents are gone", async () => {
    await ownerWithPods("fg");
    const answer = await t.call("DELETE", `${replicaSets}/fg?propagationPolicy=Foreground`);
    assert.equal(answer.status, 200);
    assert.ok(metadataOf(answer.body).deletionTimestamp, "the owner is marked deleted");
    assert.deepEqual(metadataOf(answer.body).finalizers, ["foregroundDeletion"]);
    await eventually(
      "the pods are gone",
      async () => !(await exists(`${pods}/fg-0`)) && !(await exists(`${pods}/fg-1`)),
    );
    await eventually("the owner is gone", async () => !(await exists(`${replicaSets}/fg`)));
  });

  it("Orphan (in a DeleteOptions body) removes the owner and leaves its dependents without the reference", async () => {
    await ownerWithPods("or");
    const answer = await t.call("DELETE", `${replicaSets}/or`, {
      kind: "DeleteOptions",
      apiVersion: "v1",
      propagationPolicy: "Orphan",
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(metadataOf(answer.body).finalizers, ["orphan"]);
    await eventually("the owner is gone", async () => !(await exists(`${replicaSets}/or`)));
    for (const name of ["or-0", "or-1"]) {
      const pod = await t.call("GET", `${pods}/${name}`);
      assert.equal(pod.status, 200, `${name} stays`);
      assert.equal(metadataOf(pod.body).ownerReferences, undefined);
    }
  });

  it("Background removes the owner at once and the collector deletes the dependents after", async () => {
    await ownerWithPods("bg");
    const answer = await t.call("DELETE", `${replicaSets}/bg?propagationPolicy=Background`);
    assert.equal(answer.status, 200);
    assert.equal(await exists(`${replicaSets}/bg`), false);
    await eventually(
      "the pods are gone",
      async () => !(await exists(`${pods}/bg-0`)) && !(await exists(`${pods}/bg-1`)),
    );
  });

  it("refuses a delete whose preconditions do not match with 409, deleting nothing", async () => {
    await t.call("POST", replicaSets, replicaSet("pre"));
    const wrongUid = await t.call("DELETE", `${replicaSets}/pre`, { preconditions: { uid: "not-the-uid" } });
    assert.equal(wrongUid.status, 409);
    assert.match(String(wrongUid.body.message), /UID in the precondition \(not-the-uid\)/);
    const wrongVersion = await t.call("DELETE", `${replicaSets}/pre`, { preconditions: { resourceVersion: "999999" } });
    assert.equal(wrongVersion.status, 409);
    assert.match(String(wrongVersion.body.message), /ResourceVersion in the precondition \(999999\)/);
    assert.equal(await exists(`${replicaSets}/pre`), true);
  });

  it("refuses an unknown propagationPolicy with 400", async () => {
    await t.call("POST", replicaSets, replicaSet("bad"));
    const answer = await t.call("DELETE", `${replicaSets}/bad?propagationPolicy=Sideways`);
    assert.equal(answer.status, 400);
    assert.match(
      String(answer.body.message),
      /propagationPolicy "Sideways" is not one of Orphan, Background, Foreground/,
    );
  });
});
