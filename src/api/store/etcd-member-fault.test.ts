/**
 * A 3-member etcd cluster loses one member in the middle of a write loop and gets it back: every
 * write the store acknowledged is there afterwards, read from the member that was killed too.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Etcd3 } from "etcd3";
import { RealClock } from "../../runtime/real-clock.ts";
import { Rng } from "../../runtime/rng.ts";
import { resourceForKind } from "../resources.ts";
import { EtcdBackend } from "./etcd-backend.ts";
import { KubeStore } from "./kube-store.ts";
import { startTestEtcdCluster } from "./testing/etcd-test-cluster.ts";
import { etcdTestOptions } from "./testing/etcd-test-server.ts";

const writes = 300;
const killAt = 100;
const restartAt = 200;

describe("etcd member killed during a write loop", etcdTestOptions(), () => {
  it("keeps every acknowledged write", { timeout: 180_000 }, async () => {
    const etcd = await startTestEtcdCluster(3);
    const clock = new RealClock();
    const backend = await EtcdBackend.open({ endpoints: etcd.endpoints });
    const store = new KubeStore({ backend, clock, random: new Rng(1).stream("store") });
    const type = resourceForKind("ConfigMap");
    assert.ok(type);
    const acknowledged: string[] = [];
    const refused: string[] = [];
    // A watch through the store across the member's death: it must see every acknowledged write.
    const watched = new Set<string>();
    const watch = await store.watch(type, { resourceVersion: String(store.revision()) }, (event) => {
      if (event.type === "ADDED") watched.add(event.object.metadata?.name ?? "");
    });
    try {
      for (let i = 0; i < writes; i++) {
        if (i === killAt) await etcd.kill(0);
        if (i === restartAt) await etcd.restart(0);
        const name = `write-${i}`;
        try {
          await store.create(type, {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name, namespace: "default" },
            data: { i: String(i) },
          });
          acknowledged.push(name);
        } catch (error) {
          // Only an outage may refuse a write; anything else is a failure of the test.
          if ((error as { code?: number }).code !== 503) throw error;
          refused.push(name);
        }
      }
      assert.ok(acknowledged.length >= writes - 10, `only ${acknowledged.length} of ${writes} writes went through`);
      // Read back from the restarted member alone: it caught up with what the others acknowledged.
      const member = new Etcd3({ hosts: etcd.endpoints[0] as string });
      try {
        const keys = await member.getAll().prefix("/registry/configmaps/default/").keys();
        const stored = new Set(keys.map((key) => key.slice("/registry/configmaps/default/".length)));
        assert.deepEqual(
          acknowledged.filter((name) => !stored.has(name)),
          [],
          "acknowledged writes missing",
        );
      } finally {
        member.close();
      }
      const deadline = clock.now() + 60_000;
      while (acknowledged.some((name) => !watched.has(name)) && clock.now() < deadline) await clock.sleep(100);
      assert.deepEqual(
        acknowledged.filter((name) => !watched.has(name)),
        [],
        "acknowledged writes the watch never delivered",
      );
    } finally {
      watch.stop();
      await store.close();
      await etcd.stop();
    }
    console.log(`member fault: ${acknowledged.length} writes acknowledged, ${refused.length} refused with 503`);
  });
});
