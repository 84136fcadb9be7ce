/**
 * The API server on a real 3-member etcd cluster, under faults: an API server restarted while
 * watchers are open (a watch resumes from its revision; a lagging one gets 410 Gone and its
 * informer lists again, missing nothing), and etcd unavailable (writes answer 503 with
 * Kubernetes' wording, nothing is half-written, service resumes when etcd is back).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { HttpClient } from "../api/client/http-client.ts";
import { SharedInformerFactory } from "../api/informer/shared-informer-factory.ts";
import { ensureSystemNamespaces } from "../api/namespaces.ts";
import type { ConfigMap } from "../api/objects.ts";
import { EtcdBackend } from "../api/store/etcd-backend.ts";
import { KubeStore } from "../api/store/kube-store.ts";
import type { WatchEvent } from "../api/store/store.ts";
import { startTestEtcdCluster, type TestEtcdCluster } from "../api/store/testing/etcd-test-cluster.ts";
import { etcdTestOptions } from "../api/store/testing/etcd-test-server.ts";
import { Logger, MemorySink } from "../runtime/logger.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { Rng } from "../runtime/rng.ts";
import { type RunningApiServer, startApiServer } from "./server.ts";

const clock = new RealClock();
const waitMs = 60_000;

interface EtcdApiServer {
  server: RunningApiServer;
  store: KubeStore;
  backend: EtcdBackend;
  client: HttpClient;
  close(): Promise<void>;
}

async function startEtcdApiServer(endpoints: readonly string[], seed: number, port = 0): Promise<EtcdApiServer> {
  const backend = await EtcdBackend.open({ endpoints });
  const store = new KubeStore({ backend, clock, random: new Rng(seed).stream("store") });
  await ensureSystemNamespaces(store);
  const logger = new Logger({ clock, sink: new MemorySink(), level: "info" });
  const server = await startApiServer({ store, clock, logger, port });
  return {
    server,
    store,
    backend,
    client: new HttpClient({ url: server.url }),
    close: async () => {
      await server.close();
      await store.close();
    },
  };
}

function configMap(name: string, value: string): ConfigMap {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data: { value } };
}

async function eventually(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = clock.now() + waitMs;
  while (!(await check())) {
    if (clock.now() > deadline) throw new Error(`${what} did not happen within ${waitMs} ms`);
    await clock.sleep(100);
  }
}

describe("API servers on a 3-member etcd under faults", etcdTestOptions(), () => {
  let etcd: TestEtcdCluster | undefined;
  before(async () => {
    etcd = await startTestEtcdCluster(3);
  });
  after(async () => {
    await etcd?.stop();
  });

  it("a watch resumes from its revision on a restarted API server; a lagging one gets 410 and its informer relists", {
    timeout: 180_000,
  }, async () => {
    assert.ok(etcd);
    const writer = await startEtcdApiServer(etcd.endpoints, 1);
    let watched = await startEtcdApiServer(etcd.endpoints, 2);
    const port = Number(new URL(watched.server.url).port);
    const informers = new SharedInformerFactory(new HttpClient({ url: watched.server.url }), clock, {
      resyncPeriodMs: 0,
      rng: new Rng(3),
      logger: new Logger({ clock, sink: new MemorySink(), level: "info" }),
    });
    try {
      for (let i = 0; i < 10; i++) await writer.client.configMaps.create(configMap(`before-${i}`, "1"));
      const informer = informers.informerFor("ConfigMap");
      const deleted = new Set<string>();
      informer.addEventHandler({ onDelete: (object) => deleted.add(object.metadata?.name ?? "") });
      informers.start();
      assert.ok(await informer.waitForSync());
      const resumeFrom = String(writer.backend.revision());
      const watch = await watched.client.configMaps.watch({ resourceVersion: resumeFrom }, () => undefined);

      // The watched server goes away; writes go on through the other one.
      await watched.close();
      watch.stop();
      for (let i = 0; i < 10; i++) await writer.client.configMaps.create(configMap(`during-${i}`, "2"));
      await writer.client.configMaps.delete("default", "before-0");
      await writer.client.configMaps.mutate("default", "before-1", (draft) => {
        draft.data = { value: "changed" };
      });
      watched = await startEtcdApiServer(etcd.endpoints, 4, port);

      // A client that kept its revision resumes from it and misses nothing, in order.
      const resumed: string[] = [];
      const again = await watched.client.configMaps.watch({ resourceVersion: resumeFrom }, (event) => {
        if (event.type !== "ERROR") resumed.push(`${event.type} ${event.object.metadata?.name}`);
      });
      const expected = [
        ...Array.from({ length: 10 }, (_, i) => `ADDED during-${i}`),
        "DELETED before-0",
        "MODIFIED before-1",
      ];
      await eventually("the resumed watch caught up", () => resumed.length >= expected.length);
      again.stop();
      assert.deepEqual(resumed, expected);

      // Compaction past a lagging watcher's revision (by the server it watches): 410 Gone.
      await watched.backend.compact(watched.backend.revision());
      const gone: WatchEvent<ConfigMap>[] = [];
      const lagging = await watched.client.configMaps.watch({ resourceVersion: resumeFrom }, (event) =>
        gone.push(event),
      );
      await eventually("the lagging watch ended", () => gone.length > 0);
      lagging.stop();
      assert.equal(gone[0]?.type, "ERROR");
      assert.equal((gone[0]?.object as unknown as { code?: number } | undefined)?.code, 410);

      // The informer listed again and holds exactly what etcd holds; the deletion reached its handler.
      const truth = (await writer.client.configMaps.list({ namespace: "default" })).items;
      await eventually("the informer caught up", () => informer.lister.list().length === truth.length);
      const cached = new Map(
        informer.lister.list().map((item) => [item.metadata?.name, item.metadata?.resourceVersion]),
      );
      assert.deepEqual(cached, new Map(truth.map((item) => [item.metadata?.name, item.metadata?.resourceVersion])));
      assert.ok(deleted.has("before-0"));
      assert.equal(informer.lister.list().find((item) => item.metadata?.name === "before-1")?.data?.value, "changed");
    } finally {
      informers.stop();
      await watched.close();
      await writer.close();
    }
  });

  it("answers writes with 503 while etcd is down, writes nothing half, and serves again once it is back", {
    timeout: 180_000,
  }, async () => {
    assert.ok(etcd);
    const api = await startEtcdApiServer(etcd.endpoints, 5);
    try {
      await api.client.configMaps.create(configMap("kept", "1"));
      for (let index = 0; index < 3; index++) await etcd.kill(index);
      const answer = await fetch(`${api.server.url}/api/v1/namespaces/default/configmaps`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(configMap("during-outage", "x")),
      });
      const status = (await answer.json()) as { code: number; reason: string; message: string };
      assert.equal(answer.status, 503);
      assert.equal(status.reason, "ServiceUnavailable");
      assert.match(
        status.message,
        /^The create operation against configmaps could not be completed at this time, please try again\. \(etcd at .* is unavailable: /,
      );
      await Promise.all([0, 1, 2].map((index) => etcd?.restart(index)));
      let created: ConfigMap | undefined;
      await eventually("a write succeeds again", async () => {
        try {
          created = await api.client.configMaps.create(configMap("after-outage", "y"));
          return true;
        } catch (error) {
          if ((error as { code?: number }).code !== 503) throw error;
          return false;
        }
      });
      assert.equal(created?.data?.value, "y");
      const names = (await api.client.configMaps.list({ namespace: "default" })).items.map(
        (item) => item.metadata?.name,
      );
      assert.ok(names.includes("kept"));
      assert.ok(!names.includes("during-outage"), "the refused write left nothing behind");
    } finally {
      await api.close();
    }
  });
});
