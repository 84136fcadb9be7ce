import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ResourceClient, Watch, WatchEvent, WatchOptions } from "../client/client.ts";
import { newTestApi, type TestApi, testPod } from "../client/testing/test-api.ts";
import { gone } from "../errors.ts";
import type { Pod } from "../objects.ts";
import { indexers, podsByNode } from "./indexes.ts";
import { relistBackoff } from "./reflector.ts";
import { type ResourceEventHandler, SharedInformer } from "./shared-informer.ts";

/** Everything a handler saw, as `add ns/name`, `update ns/name rv→rv`, `delete ns/name`. */
function recordingHandler(seen: string[]): ResourceEventHandler<Pod> {
  const name = (pod: Pod) => `${pod.metadata?.namespace}/${pod.metadata?.name}`;
  return {
    onAdd: (pod, initial) => seen.push(`add ${name(pod)}${initial ? " (initial)" : ""}`),
    onUpdate: (old, pod) =>
      seen.push(`update ${name(pod)} ${old.metadata?.resourceVersion}→${pod.metadata?.resourceVersion}`),
    onDelete: (pod) => seen.push(`delete ${name(pod)}`),
  };
}

/** Wraps a ResourceClient so a test can break the live watch, as a dropped connection or a 410 would. */
class BreakableWatches {
  readonly client: ResourceClient<Pod>;
  private live: { watch: Watch; onEvent: (event: WatchEvent<Pod>) => void } | undefined;
  watchesOpened = 0;
  lists = 0;

  constructor(inner: ResourceClient<Pod>) {
    const wrapper = Object.create(inner) as ResourceClient<Pod>;
    wrapper.list = (options) => {
      this.lists++;
      return inner.list(options);
    };
    wrapper.watch = async (options: WatchOptions, onEvent: (event: WatchEvent<Pod>) => void) => {
      this.watchesOpened++;
      const watch = await inner.watch(options, onEvent);
      this.live = { watch, onEvent };
      return watch;
    };
    this.client = wrapper;
  }

  /** Ends the live watch with an ERROR event carrying 410 Gone, as the API server does after compaction. */
  closeWithGone(): void {
    const live = this.live;
    assert.ok(live, "no watch is open");
    live.watch.stop();
    live.onEvent({ type: "ERROR", object: gone(1, 2).toStatus() as unknown as Pod });
    this.live = undefined;
  }
}

function podInformer(api: TestApi, resyncPeriodMs = 0, client: ResourceClient<Pod> = api.client.pods) {
  return new SharedInformer(client, { clock: api.clock, rng: api.rng, logger: api.logger, resyncPeriodMs });
}

describe("SharedInformer", () => {
  it("lists, then delivers adds, updates and deletes in the order they happened", async () => {
    const api = newTestApi();
    await api.client.pods.create(testPod("default", "before"));
    const informer = podInformer(api);
    const seen: string[] = [];
    informer.addEventHandler(recordingHandler(seen));
    informer.start();
    assert.equal(await informer.waitForSync(), true);
    assert.equal(informer.hasSynced(), true);

    const a = await api.client.pods.create(testPod("default", "a"));
    const a2 = await api.client.pods.patch("default", "a", { metadata: { labels: { v: "2" } } });
    const before = await api.client.pods.get("default", "before");
    await api.client.pods.delete("default", "before", { gracePeriodSeconds: 0 });
    await api.clock.advanceBy(0);

    // A forced pod deletion is two writes, as in Kubernetes: deletionTimestamp set, then removal.
    const marked = Number(a2.metadata?.resourceVersion) + 1;
    assert.deepEqual(seen, [
      "add default/before (initial)",
      "add default/a",
      `update default/a ${a.metadata?.resourceVersion}→${a2.metadata?.resourceVersion}`,
      `update default/before ${before.metadata?.resourceVersion}→${marked}`,
      "delete default/before",
    ]);
    assert.equal(informer.lister.get("default", "a"), a2, "the cache holds the store's object, not a copy");
    assert.equal(informer.lister.get("default", "before"), undefined);
    informer.stop();
  });

  it("shows the new state in the cache while a handler runs", async () => {
    const api = newTestApi();
    const informer = podInformer(api);
    const cachedDuringHandler: (Pod | undefined)[] = [];
    informer.addEventHandler({
      onAdd: (pod) => cachedDuringHandler.push(informer.lister.get("default", pod.metadata?.name ?? "")),
    });
    informer.start();
    await informer.waitForSync();
    const created = await api.client.pods.create(testPod("default", "a"));
    await api.clock.advanceBy(0);
    assert.deepEqual(cachedDuringHandler, [created]);
    informer.stop();
  });

  it("gives a handler added late an add for every cached object", async () => {
    const api = newTestApi();
    await api.client.pods.create(testPod("default", "a"));
    await api.client.pods.create(testPod("default", "b"));
    const informer = podInformer(api);
    informer.start();
    await informer.waitForSync();
    const seen: string[] = [];
    informer.addEventHandler(recordingHandler(seen));
    assert.deepEqual(seen.sort(), ["add default/a (initial)", "add default/b (initial)"]);
    informer.stop();
  });

  it("lets every component register the index it needs; a different function under a taken name throws", () => {
    const informer = podInformer(newTestApi());
    informer.addIndexers(indexers(podsByNode));
    informer.addIndexers(indexers(podsByNode));
    assert.ok(informer.indexer.hasIndex(podsByNode.name));
    assert.throws(() => informer.addIndexers({ [podsByNode.name]: () => [] }), /already exists/);
  });

  it("keeps indexes current: a pod moving nodes leaves the old node's bucket", async () => {
    const api = newTestApi();
    const informer = podInformer(api);
    informer.addIndexers(indexers(podsByNode));
    informer.start();
    await informer.waitForSync();
    await api.client.pods.create(testPod("default", "a", "node-1"));
    await api.client.pods.create(testPod("default", "b", "node-1"));
    await api.clock.advanceBy(0);
    assert.equal(informer.indexer.byIndex(podsByNode.name, "node-1").length, 2);

    // spec.nodeName cannot change on a real pod; recreate it elsewhere, as a StatefulSet does.
    await api.client.pods.delete("default", "a", { gracePeriodSeconds: 0 });
    await api.client.pods.create(testPod("default", "a", "node-2"));
    await api.clock.advanceBy(0);
    const onNode = (node: string) => informer.indexer.byIndex(podsByNode.name, node).map((p) => p.metadata?.name);
    assert.deepEqual(onNode("node-1"), ["b"]);
    assert.deepEqual(onNode("node-2"), ["a"]);
    informer.stop();
  });

  it("redelivers every cached object as an update once per resync period of virtual time", async () => {
    const api = newTestApi();
    await api.client.pods.create(testPod("default", "a"));
    await api.client.pods.create(testPod("default", "b"));
    const informer = podInformer(api, 30_000);
    const resynced: string[] = [];
    informer.addEventHandler({
      onUpdate: (old, pod) => {
        if (old === pod) resynced.push(pod.metadata?.name ?? "");
      },
    });
    informer.start();
    await informer.waitForSync();
    await api.clock.advanceBy(29_999);
    assert.deepEqual(resynced, []);
    await api.clock.advanceBy(1);
    assert.deepEqual(resynced.sort(), ["a", "b"]);
    await api.clock.advanceBy(30_000);
    assert.equal(resynced.length, 4);
    informer.stop();
  });

  it("costs no API call while nothing changes, resync included", async () => {
    const api = newTestApi();
    await api.client.pods.create(testPod("default", "a"));
    const informer = podInformer(api, 10_000);
    informer.start();
    await informer.waitForSync();
    api.client.calls.reset();
    await api.clock.advanceBy(600_000);
    assert.equal(api.client.calls.describe(), "no API calls");
    informer.stop();
  });

  it("lists again after the watch ends with Gone and delivers deletes for objects that vanished meanwhile", async () => {
    const api = newTestApi();
    const watches = new BreakableWatches(api.client.pods);
    for (const name of ["keep", "gone-1", "gone-2"]) await api.client.pods.create(testPod("default", name));
    const informer = podInformer(api, 0, watches.client);
    const seen: string[] = [];
    informer.addEventHandler(recordingHandler(seen));
    informer.start();
    await informer.waitForSync();
    await api.clock.advanceBy(0);
    seen.length = 0;

    watches.closeWithGone();
    await api.client.pods.delete("default", "gone-1", { gracePeriodSeconds: 0 });
    await api.client.pods.delete("default", "gone-2", { gracePeriodSeconds: 0 });
    await api.client.pods.create(testPod("default", "new"));
    await api.clock.advanceBy(0);
    assert.deepEqual(seen, [], "nothing arrives while the watch is down");

    // The relist waits for the backoff: at least initialMs, at most initialMs plus full jitter.
    await api.clock.advanceBy(relistBackoff.initialMs * 2);
    assert.equal(watches.lists, 2);
    assert.equal(watches.watchesOpened, 2);
    assert.deepEqual(seen, ["add default/new", "delete default/gone-1", "delete default/gone-2"]);
    assert.deepEqual(
      informer.lister
        .list()
        .map((p) => p.metadata?.name)
        .sort(),
      ["keep", "new"],
    );

    // The new watch works.
    await api.client.pods.delete("default", "keep", { gracePeriodSeconds: 0 });
    await api.clock.advanceBy(0);
    assert.equal(seen.at(-1), "delete default/keep");
    assert.ok(api.logs.lines().some((line) => line.includes("watch closed; listing again")));
    informer.stop();
  });

  it("relists when the watch cannot start because its revision was compacted", async () => {
    const api = newTestApi();
    const inner = api.client.pods;
    let failWatches = 1;
    const client = Object.create(inner) as ResourceClient<Pod>;
    client.watch = (options, onEvent) => {
      if (failWatches-- > 0) return Promise.reject(gone(Number(options.resourceVersion), 99));
      return inner.watch(options, onEvent);
    };
    const informer = podInformer(api, 0, client);
    informer.start();
    await informer.waitForSync();
    await api.clock.advanceBy(relistBackoff.initialMs * 2);
    await api.client.pods.create(testPod("default", "a"));
    await api.clock.advanceBy(0);
    assert.ok(informer.lister.get("default", "a"), "the second watch delivers");
    informer.stop();
  });

  it("logs a throwing handler and still delivers to the others", async () => {
    const api = newTestApi();
    const informer = podInformer(api);
    const seen: string[] = [];
    informer.addEventHandler({
      onAdd: () => {
        throw new Error("handler bug");
      },
    });
    informer.addEventHandler(recordingHandler(seen));
    informer.start();
    await informer.waitForSync();
    await api.client.pods.create(testPod("default", "a"));
    await api.clock.advanceBy(0);
    assert.deepEqual(seen, ["add default/a"]);
    const errors = api.logs.records.filter((record) => record.level === "error");
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.message ?? "", /event handler threw/);
    informer.stop();
  });

  it("delivers nothing after stop, and waitForSync on a stopped informer resolves false", async () => {
    const api = newTestApi();
    const informer = podInformer(api);
    const neverStarted = podInformer(api);
    const seen: string[] = [];
    informer.addEventHandler(recordingHandler(seen));
    informer.start();
    await informer.waitForSync();
    informer.stop();
    await api.client.pods.create(testPod("default", "a"));
    await api.clock.advanceBy(0);
    assert.deepEqual(seen, []);
    const waiting = neverStarted.waitForSync();
    neverStarted.stop();
    assert.equal(await waiting, false);
  });

  it("stops delivering to a removed handler", async () => {
    const api = newTestApi();
    const informer = podInformer(api);
    const seen: string[] = [];
    const registration = informer.addEventHandler(recordingHandler(seen));
    informer.start();
    await informer.waitForSync();
    registration.remove();
    await api.client.pods.create(testPod("default", "a"));
    await api.clock.advanceBy(0);
    assert.deepEqual(seen, []);
    informer.stop();
  });
});
