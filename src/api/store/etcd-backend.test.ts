import { describe } from "node:test";
import { describeBackendConformance } from "./backend-conformance.ts";
import { EtcdBackend } from "./etcd-backend.ts";
import { etcdTestOptions, startTestEtcd } from "./testing/etcd-test-server.ts";

describe("etcd backend", etcdTestOptions(), () => {
  // A fresh etcd per scenario: the suite checks revisions from an empty store on.
  describeBackendConformance(
    "etcd",
    async (options) => {
      const etcd = await startTestEtcd();
      const open = (): Promise<EtcdBackend> => EtcdBackend.open({ endpoints: [etcd.endpoint], ...options });
      let backend = await open();
      return {
        backend,
        async reopen() {
          await backend.close();
          backend = await open();
          return backend;
        },
        async dispose() {
          await backend.close();
          await etcd.stop();
        },
      };
    },
    { persistent: true, emptyRevision: 1, separateAcknowledgements: true },
  );
});
