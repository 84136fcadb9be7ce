import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "../objects.ts";
import { Indexer, namespaceIndexName, readsOnlySpec } from "./indexer.ts";
import { indexers, podsByClaim, podsByNode } from "./indexes.ts";

function pod(namespace: string, name: string, nodeName?: string, claims: string[] = []): Pod {
  return {
    kind: "Pod",
    metadata: { namespace, name },
    spec: {
      containers: [{ name: "c" }],
      ...(nodeName === undefined ? {} : { nodeName }),
      volumes: claims.map((claimName, index) => ({ name: `v${index}`, persistentVolumeClaim: { claimName } })),
    },
  };
}

const names = (pods: Pod[]): string[] => pods.map((p) => p.metadata?.name ?? "").sort();

describe("Indexer", () => {
  it("moves an updated object from its old index bucket to the new one", () => {
    const indexer = new Indexer<Pod>(indexers(podsByNode));
    indexer.upsert(pod("default", "a", "node-1"));
    indexer.upsert(pod("default", "b", "node-1"));
    indexer.upsert(pod("default", "a", "node-2"));
    assert.deepEqual(names(indexer.byIndex(podsByNode.name, "node-1")), ["b"]);
    assert.deepEqual(names(indexer.byIndex(podsByNode.name, "node-2")), ["a"]);
    assert.equal(indexer.countByIndex(podsByNode.name, "node-2"), 1);
  });

  it("returns the latest version of an object from an index lookup", () => {
    const indexer = new Indexer<Pod>(indexers(podsByNode));
    indexer.upsert(pod("default", "a", "node-1"));
    const newer = pod("default", "a", "node-1", ["data"]);
    indexer.upsert(newer);
    assert.equal(indexer.byIndex(podsByNode.name, "node-1")[0], newer);
  });

  it("empties index buckets on delete and returns the deleted object", () => {
    const indexer = new Indexer<Pod>(indexers(podsByNode));
    const a = pod("default", "a", "node-1");
    indexer.upsert(a);
    assert.equal(indexer.delete("default/a"), a);
    assert.deepEqual(indexer.byIndex(podsByNode.name, "node-1"), []);
    assert.deepEqual(indexer.indexKeys(podsByNode.name, "node-1"), []);
    assert.equal(indexer.delete("default/a"), undefined);
    assert.equal(indexer.size, 0);
  });

  it("files objects by namespace without being asked", () => {
    const indexer = new Indexer<Pod>();
    indexer.upsert(pod("ns-1", "a"));
    indexer.upsert(pod("ns-2", "b"));
    indexer.upsert(pod("ns-1", "c"));
    assert.deepEqual(names(indexer.byIndex(namespaceIndexName, "ns-1")), ["a", "c"]);
  });

  it("keeps an updated object under its namespace once, until it is deleted", () => {
    const indexer = new Indexer<Pod>();
    indexer.upsert(pod("ns-1", "a", "node-1"));
    indexer.upsert(pod("ns-1", "a", "node-2"));
    assert.equal(indexer.countByIndex(namespaceIndexName, "ns-1"), 1);
    assert.equal(indexer.byIndex(namespaceIndexName, "ns-1")[0]?.spec?.nodeName, "node-2");
    indexer.delete("ns-1/a");
    assert.equal(indexer.countByIndex(namespaceIndexName, "ns-1"), 0);
  });

  it("files existing objects when an index is added later", () => {
    const indexer = new Indexer<Pod>();
    indexer.upsert(pod("default", "a", undefined, ["data"]));
    indexer.addIndex(podsByClaim.name, podsByClaim.indexFunc);
    assert.deepEqual(names(indexer.byIndex(podsByClaim.name, "default/data")), ["a"]);
  });

  it("names the unknown index and the known ones", () => {
    const indexer = new Indexer<Pod>(indexers(podsByNode));
    assert.throws(
      () => indexer.byIndex("by-colour", "red"),
      /no index named "by-colour" \(known indexes: namespace, pods-by-node\)/,
    );
    assert.throws(() => indexer.addIndex(podsByNode.name, podsByNode.indexFunc), /already exists/);
  });

  it("keeps an object filed under several values of one index until none refers to it", () => {
    const indexer = new Indexer<Pod>(indexers(podsByClaim));
    indexer.upsert(pod("default", "a", undefined, ["x", "y"]));
    indexer.upsert(pod("default", "a", undefined, ["y", "z"]));
    assert.deepEqual(indexer.byIndex(podsByClaim.name, "default/x"), []);
    assert.deepEqual(names(indexer.byIndex(podsByClaim.name, "default/y")), ["a"]);
    assert.deepEqual(names(indexer.byIndex(podsByClaim.name, "default/z")), ["a"]);
  });

  it("lists a bucket's objects in filing order as it grows, shrinks to one and grows again", () => {
    const indexer = new Indexer<Pod>(indexers(podsByNode));
    const filed = (): string[] => indexer.byIndex(podsByNode.name, "node-1").map((p) => p.metadata?.name ?? "");
    indexer.upsert(pod("default", "b", "node-1"));
    indexer.upsert(pod("default", "a", "node-1"));
    indexer.upsert(pod("default", "c", "node-1"));
    assert.deepEqual(filed(), ["b", "a", "c"]);
    indexer.delete("default/b");
    indexer.upsert(pod("default", "c", "node-2"));
    assert.deepEqual(filed(), ["a"]);
    assert.deepEqual(indexer.indexKeys(podsByNode.name, "node-1"), ["default/a"]);
    assert.equal(indexer.countByIndex(podsByNode.name, "node-1"), 1);
    indexer.upsert(pod("default", "b", "node-1"));
    indexer.upsert(pod("default", "a", "node-1"));
    assert.deepEqual(filed(), ["a", "b"]);
    assert.equal(indexer.countByIndex(podsByNode.name, "node-1"), 2);
    indexer.delete("default/a");
    indexer.delete("default/b");
    assert.deepEqual(filed(), []);
    assert.equal(indexer.countByIndex(podsByNode.name, "node-1"), 0);
  });

  it("files objects by a spec-only index across status writes, spec changes and deletes", () => {
    let calls = 0;
    const byNode = readsOnlySpec((p: Pod) => {
      calls++;
      return p.spec?.nodeName ? [p.spec.nodeName] : [];
    });
    const indexer = new Indexer<Pod>({ node: byNode });
    const first = pod("default", "a", "node-1");
    indexer.upsert(first);
    // A status write keeps the stored spec object itself: the pod stays filed, its index is not recomputed.
    const running: Pod = { ...first, status: { phase: "Running" } };
    const callsBefore = calls;
    indexer.upsert(running);
    assert.equal(calls, callsBefore);
    assert.equal(indexer.byIndex("node", "node-1")[0], running);
    // A new spec moves it.
    indexer.upsert({ ...running, spec: { ...running.spec, containers: [], nodeName: "node-2" } });
    assert.deepEqual(indexer.byIndex("node", "node-1"), []);
    assert.deepEqual(names(indexer.byIndex("node", "node-2")), ["a"]);
    indexer.delete("default/a");
    assert.equal(indexer.countByIndex("node", "node-2"), 0);
  });

  it("recomputes an unmarked index on every update, whatever it reads", () => {
    const byPhase = (p: Pod): string[] => [p.status?.phase ?? "none"];
    const indexer = new Indexer<Pod>({ phase: byPhase });
    const first = pod("default", "a", "node-1");
    indexer.upsert(first);
    indexer.upsert({ ...first, status: { phase: "Running" } });
    assert.deepEqual(indexer.byIndex("phase", "none"), []);
    assert.deepEqual(names(indexer.byIndex("phase", "Running")), ["a"]);
  });
});
