/**
 * Events in etcd expire as kube-apiserver's do: each is written with a lease of `--event-ttl`
 * (1 h by default) plus the lease manager's reuse window, writes close together share the lease,
 * and when etcd revokes it the store's watchers see the Event DELETED.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Etcd3 } from "etcd3";
import type { Timer } from "../../runtime/clock.ts";
import { RealClock } from "../../runtime/real-clock.ts";
import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import type { KObject } from "../objects.ts";
import { type ResourceType, resourceForKind } from "../resources.ts";
import { EtcdBackend } from "./etcd-backend.ts";
import { KubeStore } from "./kube-store.ts";
import type { WatchEvent } from "./store.ts";
import { etcdTestOptions, startTestEtcd, type TestEtcd } from "./testing/etcd-test-server.ts";

function resource(kind: string): ResourceType {
  const type = resourceForKind(kind);
  assert.ok(type, `no resource for kind ${kind}`);
  return type;
}

const events = resource("Event");
const configMaps = resource("ConfigMap");

function event(name: string): KObject {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name, namespace: "default" },
    involvedObject: { kind: "Pod", name: "web-0", namespace: "default", apiVersion: "v1" },
    reason: "FailedAttachVolume",
    message: 'Multi-Attach error for volume "pvc-1"',
    type: "Warning",
    source: { component: "attachdetach-controller" },
  };
}

describe("etcd store: Event TTL", etcdTestOptions(), () => {
  let etcd: TestEtcd | undefined;
  let raw: Etcd3 | undefined;
  before(async () => {
    etcd = await startTestEtcd();
    raw = new Etcd3({ hosts: [etcd.endpoint] });
  });
  after(async () => {
    raw?.close();
    await etcd?.stop();
  });

  async function leaseOf(key: string): Promise<string> {
    const kv = (await (raw as Etcd3).kv.range({ key: Buffer.from(key) })).kvs[0];
    assert.ok(kv, `${key} is not in etcd`);
    return kv.lease;
  }

  it("writes each Event with a lease of 1 h (3,660 s with the 60 s reuse window) shared by the next Event", async () => {
    const backend = await EtcdBackend.open({ endpoints: [etcd?.endpoint ?? ""], clock: new VirtualClock() });
    const store = new KubeStore({ backend, clock: new VirtualClock(), random: new Rng(11) });
    try {
      await store.create(events, event("web-0.a"));
      await store.create(events, event("web-0.b"));
      await store.create(configMaps, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "kept" } });
      const lease = await leaseOf("/registry/events/default/web-0.a");
      assert.notEqual(lease, "0", "the Event has a lease");
      const ttl = await (raw as Etcd3).leaseClient.leaseTimeToLive({ ID: lease });
      assert.equal(ttl.grantedTTL, "3660");
      assert.ok(Number(ttl.TTL) > 3600 && Number(ttl.TTL) <= 3660, `remaining TTL ${ttl.TTL}`);
      assert.equal(await leaseOf("/registry/events/default/web-0.b"), lease, "the second Event reuses the lease");
      assert.equal(await leaseOf("/registry/configmaps/default/kept"), "0", "a ConfigMap never expires");
    } finally {
      await store.close();
    }
  });

  it("removes the Event when its lease runs out (--event-ttl 2s), and a watcher sees it DELETED", async () => {
    const clock = new RealClock();
    const backend = await EtcdBackend.open({ endpoints: [etcd?.endpoint ?? ""], clock });
    const store = new KubeStore({ backend, clock, random: new Rng(12), eventTtlSeconds: 2 });
    try {
      let onDeleted: () => void = () => undefined;
      const deleted = new Promise<void>((resolve) => (onDeleted = resolve));
      const seen: string[] = [];
      await store.watch(events, { namespace: "default" }, (watched: WatchEvent) => {
        seen.push(`${watched.type} ${watched.object.metadata?.name}`);
        if (watched.type === "DELETED") onDeleted();
      });
      await store.create(events, event("web-0.c"));
      // etcd checks for expired leases every 500 ms; a loaded machine may take longer.
      const patienceMs = 60_000;
      let patience: Timer | undefined;
      await Promise.race([
        deleted,
        new Promise<never>((_, reject) => {
          patience = clock.setTimer(patienceMs, () => reject(new Error(`no DELETED within ${patienceMs} ms: ${seen}`)));
        }),
      ]).finally(() => patience?.cancel());
      assert.deepEqual(seen, ["ADDED web-0.a", "ADDED web-0.b", "ADDED web-0.c", "DELETED web-0.c"]);
      assert.deepEqual(
        (await store.list(events, { namespace: "default" })).items.map((item) => item.metadata?.name),
        ["web-0.a", "web-0.b"],
      );
    } finally {
      await store.close();
    }
  });
});
