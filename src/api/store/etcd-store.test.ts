import { after, before, describe } from "node:test";
import { Etcd3 } from "etcd3";
import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { EtcdBackend } from "./etcd-backend.ts";
import { KubeStore } from "./kube-store.ts";
import { describeStoreConformance } from "./store-conformance.ts";
import { etcdTestOptions, startTestEtcd, type TestEtcd } from "./testing/etcd-test-server.ts";

describe("etcd store", etcdTestOptions(), () => {
  let etcd: TestEtcd | undefined;
  before(async () => {
    etcd = await startTestEtcd();
  });
  after(async () => {
    await etcd?.stop();
  });

  // Scenarios share one etcd (starting one takes a while): the store conformance suite only
  // compares revisions with each other, and each scenario starts from an empty key space.
  describeStoreConformance(
    "etcd",
    async () => {
      if (etcd === undefined) throw new Error("etcd did not start");
      const endpoints = [etcd.endpoint];
      const cleaner = new Etcd3({ hosts: endpoints });
      await cleaner.delete().all();
      cleaner.close();
      const clock = new VirtualClock();
      const random = new Rng(42);
      let backend = await EtcdBackend.open({ endpoints });
      let store = new KubeStore({ backend, clock, random });
      return {
        store,
        backend,
        clock,
        async reopen() {
          await store.close();
          backend = await EtcdBackend.open({ endpoints });
          store = new KubeStore({ backend, clock, random });
          return { store, backend };
        },
        async dispose() {
          await store.close();
        },
      };
    },
    { persistent: true },
  );
});
