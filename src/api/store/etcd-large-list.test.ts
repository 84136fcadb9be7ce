/**
 * A list whose answer from etcd is larger than gRPC's default 4 MiB (thousands of pods) works, as
 * with kube-apiserver, whose etcd client accepts answers of any size.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RealClock } from "../../runtime/real-clock.ts";
import { Rng } from "../../runtime/rng.ts";
import { resourceForKind } from "../resources.ts";
import { EtcdBackend } from "./etcd-backend.ts";
import { KubeStore } from "./kube-store.ts";
import { etcdTestOptions, startTestEtcd } from "./testing/etcd-test-server.ts";

const objects = 6;
const bytesPerObject = 900 * 1024;

describe("etcd backend: a large list", etcdTestOptions(), () => {
  it("lists more than 4 MiB in one answer", { timeout: 120_000 }, async () => {
    const etcd = await startTestEtcd();
    const backend = await EtcdBackend.open({ endpoints: [etcd.endpoint] });
    const store = new KubeStore({ backend, clock: new RealClock(), random: new Rng(1).stream("store") });
    const type = resourceForKind("ConfigMap");
    assert.ok(type);
    try {
      for (let i = 0; i < objects; i++) {
        await store.create(type, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `big-${i}`, namespace: "default" },
          data: { blob: "x".repeat(bytesPerObject) },
        });
      }
      const list = await store.list(type, { namespace: "default" });
      assert.equal(list.items.length, objects);
    } finally {
      await store.close();
      await etcd.stop();
    }
  });
});
