import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatEntry, ObjectHistory } from "./object-history.ts";

/** 2026-01-01T00:00:00Z. */
const startMs = 1_767_225_600_000;

describe("ObjectHistory", () => {
  it("keeps the latest entries of each object, and merges several objects oldest first", () => {
    const history = new ObjectHistory(2, 10);
    history.record("disk/disk-1", startMs + 1_000, "attachments: [node-a rw attaching]");
    history.record("Node/node-a", startMs + 1_500, "updated: Ready=false");
    history.record("disk/disk-1", startMs + 2_000, "attachments: [node-a rw attached]");
    history.record("disk/disk-1", startMs + 3_000, "attachments: []");
    assert.deepEqual(history.entriesOfAll(["disk/disk-1", "Node/node-a", "Node/unknown"]).map(formatEntry), [
      "2026-01-01T00:00:01.500Z Node/node-a: updated: Ready=false",
      "2026-01-01T00:00:02.000Z disk/disk-1: attachments: [node-a rw attached]",
      "2026-01-01T00:00:03.000Z disk/disk-1: attachments: []",
    ]);
  });

  it("forgets the least recently changed object beyond its bound", () => {
    const history = new ObjectHistory(5, 2);
    history.record("a", startMs, "1");
    history.record("b", startMs, "1");
    history.record("a", startMs, "2");
    history.record("c", startMs, "1");
    assert.deepEqual(
      ["a", "b", "c"].map((object) => history.entriesOf(object).length),
      [2, 0, 1],
    );
  });
});
