import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newTestApi, testPod } from "../client/testing/test-api.ts";
import { SharedInformerFactory } from "./shared-informer-factory.ts";

describe("SharedInformerFactory", () => {
  it("shares one informer, and one list and watch, per kind", async () => {
    const api = newTestApi();
    await api.client.pods.create(testPod("default", "a"));
    const factory = new SharedInformerFactory(api.client, api.clock, {
      resyncPeriodMs: 0,
      rng: api.rng,
      logger: api.logger,
    });
    const forController = factory.informerFor("Pod");
    const forKubelet = factory.informerFor("Pod");
    assert.equal(forController, forKubelet);
    factory.informerFor("PersistentVolume");
    api.client.calls.reset();
    factory.start();
    assert.equal(await factory.waitForCacheSync(), true);
    await api.clock.advanceBy(0);
    assert.equal(
      api.client.calls.describe(),
      "list persistentvolumes=1, list pods=1, watch persistentvolumes=1, watch pods=1",
    );
    assert.equal(forKubelet.lister.get("default", "a")?.metadata?.name, "a");
    assert.deepEqual(factory.unsyncedKinds(), []);
    factory.stop();
  });

  it("starts an informer requested after start at once", async () => {
    const api = newTestApi();
    const factory = new SharedInformerFactory(api.client, api.clock, {
      resyncPeriodMs: 0,
      rng: api.rng,
      logger: api.logger,
    });
    factory.start();
    const nodes = factory.informerFor("Node");
    assert.deepEqual(factory.unsyncedKinds(), ["Node"]);
    assert.equal(await factory.waitForCacheSync(), true);
    assert.equal(nodes.hasSynced(), true);
    factory.stop();
  });

  it("reports false from waitForCacheSync when stopped before the caches filled", async () => {
    const api = newTestApi();
    const factory = new SharedInformerFactory(api.client, api.clock, {
      resyncPeriodMs: 0,
      rng: api.rng,
      logger: api.logger,
    });
    factory.informerFor("Pod");
    const waiting = factory.waitForCacheSync();
    factory.stop();
    assert.equal(await waiting, false);
    assert.throws(() => factory.start(), /start\(\) after stop\(\)/);
  });
});
