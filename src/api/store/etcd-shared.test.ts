/**
 * Two API servers' stores on one etcd: Kubernetes' keys and values in etcd, resourceVersion =
 * mod revision, a watch through one server sees writes made through the other, optimistic
 * concurrency across servers, and Gone for a list from before etcd's compaction.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Etcd3 } from "etcd3";
import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { isApiError } from "../errors.ts";
import type { KObject } from "../objects.ts";
import { type ResourceType, resourceForKind } from "../resources.ts";
import { EtcdBackend } from "./etcd-backend.ts";
import { KubeStore } from "./kube-store.ts";
import type { WatchEvent } from "./store.ts";
import { etcdTestOptions, startTestEtcd, type TestEtcd } from "./testing/etcd-test-server.ts";

function resource(kind: string): ResourceType {
  const type = resourceForKind(kind);
  assert.ok(type, kind);
  return type;
}

describe("two API servers on one etcd", etcdTestOptions(), () => {
  let etcd: TestEtcd | undefined;
  let raw: Etcd3 | undefined;
  const stores: KubeStore[] = [];
  const configMaps = resource("ConfigMap");
  const persistentVolumes = resource("PersistentVolume");

  async function server(seed: number): Promise<KubeStore> {
    return (await serverWithBackend(seed)).store;
  }

  async function serverWithBackend(seed: number): Promise<{ store: KubeStore; backend: EtcdBackend }> {
    assert.ok(etcd);
    const backend = await EtcdBackend.open({ endpoints: [etcd.endpoint] });
    const store = new KubeStore({ backend, clock: new VirtualClock(), random: new Rng(seed) });
    stores.push(store);
    return { store, backend };
  }

  function configMap(name: string, namespace = "default"): KObject {
    return { metadata: { name, namespace } };
  }

  before(async () => {
    etcd = await startTestEtcd();
    raw = new Etcd3({ hosts: etcd.endpoint });
  });
  after(async () => {
    for (const store of stores) await store.close();
    raw?.close();
    await etcd?.stop();
  });

  it("stores objects under /registry/<resource>/<namespace>/<name> with resourceVersion = mod revision", async () => {
    assert.ok(raw);
    const store = await server(1);
    const created = await store.create(configMaps, { ...configMap("settings"), data: { a: "1" } });
    const pv = await store.create<KObject>(persistentVolumes, {
      metadata: { name: "pv-1" },
      spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/data" } },
    });
    const response = await raw.kv.range({ key: Buffer.from("/registry/configmaps/default/settings") });
    const kv = response.kvs[0];
    assert.ok(kv, "the ConfigMap is at its Kubernetes key");
    assert.equal(created.metadata?.resourceVersion, kv.mod_revision);
    const stored = JSON.parse(kv.value.toString()) as KObject;
    assert.equal(stored.metadata?.resourceVersion, undefined, "etcd's mod revision is the only resourceVersion");
    assert.equal(stored.metadata?.uid, created.metadata?.uid);
    const pvKey = await raw.get("/registry/persistentvolumes/pv-1").string();
    assert.ok(pvKey, "a cluster-scoped object's key has no namespace");
    assert.equal(pv.metadata?.resourceVersion, String(Number(kv.mod_revision) + 1));
  });

  it("a watch through one server sees writes made through the other, in order", { timeout: 20_000 }, async () => {
    const first = await server(2);
    const second = await server(3);
    const seen: string[] = [];
    let done: () => void = () => undefined;
    const allSeen = new Promise<void>((resolve) => {
      done = resolve;
    });
    const watch = await first.watch(
      configMaps,
      { namespace: "team", resourceVersion: String(first.revision()) },
      (event: WatchEvent) => {
        seen.push(`${event.type} ${event.object.metadata?.name} ${event.object.metadata?.resourceVersion}`);
        if (seen.length === 3) done();
      },
    );
    const a = await second.create(configMaps, configMap("a", "team"));
    const b = await first.create(configMaps, configMap("b", "team"));
    const a2 = await second.update(configMaps, { ...a, data: { k: "v" } });
    await allSeen;
    watch.stop();
    assert.deepEqual(seen, [
      `ADDED a ${a.metadata?.resourceVersion}`,
      `ADDED b ${b.metadata?.resourceVersion}`,
      `MODIFIED a ${a2.metadata?.resourceVersion}`,
    ]);
  });

  it("64 concurrent creates through two servers reach a watch once each, in revision order", {
    timeout: 20_000,
  }, async () => {
    const first = await server(8);
    const second = await server(9);
    const revisions: number[] = [];
    let done: () => void = () => undefined;
    const allSeen = new Promise<void>((resolve) => {
      done = resolve;
    });
    const watch = await first.watch(
      configMaps,
      { namespace: "burst", resourceVersion: String(first.revision()) },
      (event) => {
        revisions.push(Number(event.object.metadata?.resourceVersion));
        if (revisions.length === 64) done();
      },
    );
    await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        (i % 2 === 0 ? first : second).create(configMaps, configMap(`c${i}`, "burst")),
      ),
    );
    await allSeen;
    watch.stop();
    assert.deepEqual(
      revisions,
      [...revisions].sort((x, y) => x - y),
    );
    assert.equal(new Set(revisions).size, 64);
  });

  it("an update through one server with the resourceVersion the other already moved on is a Conflict", async () => {
    const first = await server(4);
    const second = await server(5);
    const created = await first.create(configMaps, configMap("shared"));
    await second.update(configMaps, { ...created, data: { by: "second" } });
    await assert.rejects(first.update(configMaps, { ...created, data: { by: "first" } }), (err: unknown) =>
      isApiError(err, "Conflict"),
    );
    assert.deepEqual((await first.get(configMaps, "default", "shared")).data, { by: "second" });
  });

  it("a list from before etcd's compaction by another server is Gone (410)", async () => {
    const first = await serverWithBackend(6);
    const second = await server(7);
    const old = await first.store.create(configMaps, configMap("old"));
    await first.store.update(configMaps, { ...old, data: { k: "v" } });
    await first.backend.compact(first.store.revision());
    await assert.rejects(
      second.list(configMaps, { resourceVersion: old.metadata?.resourceVersion ?? "" }),
      (err: unknown) => isApiError(err, "Gone") && err.message.startsWith("too old resource version"),
    );
  });
});
