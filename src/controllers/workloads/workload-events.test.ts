import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Indexer } from "../../api/informer/indexer.ts";
import { Lister } from "../../api/informer/lister.ts";
import type { Pod, StatefulSet } from "../../api/objects.ts";
import { ItemExponentialFailureRateLimiter } from "../../runtime/rate-limiter.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { WorkQueue } from "../../runtime/workqueue.ts";
import { enqueueControllerOnEveryChange, enqueueOnEveryChange } from "./workload-events.ts";

function newQueue(): WorkQueue<string> {
  const clock = new VirtualClock({ startTimeMs: 0 });
  return new WorkQueue<string>({ name: "test", clock, rateLimiter: new ItemExponentialFailureRateLimiter(5, 1_000) });
}

async function drain(queue: WorkQueue<string>): Promise<string[]> {
  const keys: string[] = [];
  while (queue.len() > 0) {
    const key = await queue.get();
    if (key === undefined) break;
    keys.push(key);
    queue.done(key);
  }
  return keys.sort();
}

function set(name: string, uid: string): StatefulSet {
  return { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { namespace: "default", name, uid } };
}

function podOf(owner: string | undefined, uid = `uid-${owner}`): Pod {
  const ownerReferences =
    owner === undefined ? [] : [{ apiVersion: "apps/v1", kind: "StatefulSet", name: owner, uid, controller: true }];
  return { apiVersion: "v1", kind: "Pod", metadata: { namespace: "default", name: "p", ownerReferences } };
}

describe("workload event handlers", () => {
  it("queue an owner's own key on add, update and delete", async () => {
    const queue = newQueue();
    const handler = enqueueOnEveryChange<StatefulSet>(queue);
    handler.onAdd?.(set("a", "uid-a"), false);
    handler.onUpdate?.(set("b", "uid-b"), set("c", "uid-c"));
    handler.onDelete?.(set("d", "uid-d"));
    assert.deepEqual(await drain(queue), ["default/a", "default/c", "default/d"]);
  });

  it("queue the cached controller of a dependent, both before and after an update that moved it", async () => {
    const indexer = new Indexer<StatefulSet>();
    indexer.upsert(set("web", "uid-web"));
    indexer.upsert(set("db", "uid-db"));
    const queue = newQueue();
    const handler = enqueueControllerOnEveryChange<Pod, StatefulSet>(queue, "StatefulSet", new Lister(indexer));
    handler.onUpdate?.(podOf("web"), podOf("db"));
    assert.deepEqual(await drain(queue), ["default/db", "default/web"]);
  });

  it("queue nothing for an orphan or a controller gone from the cache or recreated with another uid", async () => {
    const indexer = new Indexer<StatefulSet>();
    indexer.upsert(set("web", "uid-web"));
    const queue = newQueue();
    const handler = enqueueControllerOnEveryChange<Pod, StatefulSet>(queue, "StatefulSet", new Lister(indexer));
    handler.onAdd?.(podOf(undefined), false);
    handler.onAdd?.(podOf("gone"), false);
    handler.onDelete?.(podOf("web", "uid-of-an-older-web"));
    assert.deepEqual(await drain(queue), []);
  });
});
