import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Node, Pod } from "../objects.ts";
import { parseLabelSelector } from "../selectors/labels.ts";
import { Indexer } from "./indexer.ts";
import { Lister } from "./lister.ts";

function pod(namespace: string, name: string, labels: Record<string, string>): Pod {
  return { metadata: { namespace, name, labels }, spec: { containers: [] } };
}

describe("Lister", () => {
  const indexer = new Indexer<Pod>();
  for (const p of [
    pod("shop", "web-1", { app: "web" }),
    pod("shop", "db-0", { app: "db" }),
    pod("blog", "web-1", { app: "web" }),
  ]) {
    indexer.upsert(p);
  }
  const lister = new Lister(indexer);
  const names = (pods: Pod[]) => pods.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`).sort();

  it("gets an object by namespace and name", () => {
    assert.equal(lister.get("blog", "web-1")?.metadata?.namespace, "blog");
    assert.equal(lister.get("blog", "db-0"), undefined);
  });

  it("lists everything, or what a label selector matches", () => {
    assert.equal(lister.list().length, 3);
    assert.deepEqual(names(lister.list(parseLabelSelector("app=web"))), ["blog/web-1", "shop/web-1"]);
  });

  it("lists one namespace, optionally filtered", () => {
    assert.deepEqual(names(lister.listNamespace("shop")), ["shop/db-0", "shop/web-1"]);
    assert.deepEqual(names(lister.listNamespace("shop", parseLabelSelector("app!=web"))), ["shop/db-0"]);
    assert.deepEqual(lister.listNamespace("empty"), []);
  });

  it('gets cluster-scoped objects with the namespace ""', () => {
    const nodes = new Indexer<Node>();
    nodes.upsert({ metadata: { name: "node-1" } });
    assert.equal(new Lister(nodes).get("", "node-1")?.metadata?.name, "node-1");
  });
});
