import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { BackendEvent } from "./backend.ts";
import { EtcdHistory } from "./etcd-history.ts";

function put(revision: number, key: string): BackendEvent {
  return {
    type: "put",
    key,
    revision,
    object: { metadata: { name: key } },
    previous: undefined,
    createRevision: revision,
  };
}

function revisionsAfter(history: EtcdHistory, revision: number, prefix = "/"): number[] {
  return history.after(revision, prefix).map((event) => event.revision);
}

describe("etcd backend history", () => {
  it("serves the events after a revision, by key prefix, oldest first", () => {
    const history = new EtcdHistory(0);
    history.append([put(1, "/pods/a"), put(2, "/pvcs/b"), put(3, "/pods/c")]);
    assert.deepEqual(revisionsAfter(history, 0), [1, 2, 3]);
    assert.deepEqual(revisionsAfter(history, 1, "/pods/"), [3]);
    assert.deepEqual(revisionsAfter(history, 3), []);
  });

  it("forgets what it drops, one event at a time as a rolling window does, and keeps the rest", () => {
    const history = new EtcdHistory(0);
    for (let revision = 1; revision <= 100; revision++) {
      history.append([put(revision, `/pods/p${revision}`)]);
      if (revision > 10) history.dropThrough(revision - 10);
      assert.equal(history.start, Math.max(0, revision - 10));
      assert.deepEqual(
        revisionsAfter(history, 0),
        Array.from({ length: Math.min(revision, 10) }, (_, i) => Math.max(1, revision - 9) + i),
      );
    }
    assert.deepEqual(revisionsAfter(history, 95), [96, 97, 98, 99, 100]);
  });

  it("keeps the events of a transaction together and ignores a drop below its start", () => {
    const history = new EtcdHistory(4);
    history.append([put(5, "/a"), put(6, "/b"), put(6, "/c"), put(7, "/d")]);
    history.dropThrough(3);
    assert.equal(history.start, 4);
    history.dropThrough(5);
    assert.deepEqual(
      history.after(5, "/").map((event) => event.key),
      ["/b", "/c", "/d"],
    );
    history.dropThrough(6);
    assert.deepEqual(
      history.after(0, "/").map((event) => event.key),
      ["/d"],
    );
  });
});
