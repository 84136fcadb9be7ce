import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { isApiError } from "../errors.ts";
import { EtcdBackend } from "./etcd-backend.ts";
import { etcdTestOptions, startTestEtcd } from "./testing/etcd-test-server.ts";

/** Lets the compaction started by a timer reach etcd: a few round trips to it. */
async function roundTrips(backend: EtcdBackend): Promise<void> {
  for (let trip = 0; trip < 20; trip++) await backend.get("/r/settle");
}

describe("etcd compaction", etcdTestOptions(), () => {
  it("compacts etcd every 5 minutes to the revision seen 5 minutes earlier, as kube-apiserver does", async () => {
    const etcd = await startTestEtcd();
    const clock = new VirtualClock();
    const backend = await EtcdBackend.open({ endpoints: [etcd.endpoint], clock });
    try {
      const opened = backend.revision();
      await clock.advanceBy(0); // the compactor's first pass, at start, notes `opened`
      const a = await backend.create("/r/a", { metadata: { name: "a" } });
      await clock.advanceBy(5 * 60_000);
      await roundTrips(backend);
      await backend.update("/r/a", { metadata: { name: "a" }, data: { k: "v" } }, a.modRevision);
      await backend.create("/r/c", { metadata: { name: "c" } });
      await clock.advanceBy(5 * 60_000 - 1);
      await roundTrips(backend);
      assert.equal((await backend.list("/r/", opened)).entries.length, 0, "nothing compacted before 5 minutes");
      await clock.advanceBy(1);
      await roundTrips(backend);
      // The first tick saw revision `a`; the second compacts to it.
      assert.equal(backend.compactedRevision(), a.modRevision, "compacted to the revision of the previous tick");
      await assert.rejects(backend.list("/r/", opened), (err: unknown) => isApiError(err, "Gone"));
      assert.deepEqual((await backend.list("/r/", a.modRevision)).entries.length, 1);
      assert.equal((await backend.list("/r/")).entries.length, 2);
    } finally {
      await backend.close();
      await etcd.stop();
    }
  });
});
