import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GroupCommit, type WriteOutcome } from "./group-commit.ts";

/** A committer that records each group it is given and fails the writes named "bad". */
function recordingCommitter(groups: string[][]): (writes: readonly string[]) => WriteOutcome<string>[] {
  return (writes) => {
    groups.push([...writes]);
    return writes.map((write) =>
      write === "bad" ? { ok: false, error: new Error(`${write} refused`) } : { ok: true, value: `${write} stored` },
    );
  };
}

describe("GroupCommit", () => {
  it("commits the writes of one turn together, in submission order; a refused write fails alone", async () => {
    const groups: string[][] = [];
    const writes = new GroupCommit(recordingCommitter(groups), 100);
    const results = await Promise.allSettled([writes.submit("a"), writes.submit("bad"), writes.submit("c")]);
    assert.deepEqual(groups, [["a", "bad", "c"]]);
    assert.deepEqual(
      results.map((result) => (result.status === "fulfilled" ? result.value : (result.reason as Error).message)),
      ["a stored", "bad refused", "c stored"],
    );
    assert.equal(await writes.submit("d"), "d stored");
    assert.deepEqual(groups, [["a", "bad", "c"], ["d"]]);
  });

  it("fails every write of a group whose commit fails", async () => {
    const writes = new GroupCommit<string, string>(() => {
      throw new Error("disk I/O error");
    }, 100);
    const results = await Promise.allSettled([writes.submit("a"), writes.submit("b")]);
    assert.deepEqual(
      results.map((result) => result.status === "rejected" && (result.reason as Error).message),
      ["disk I/O error", "disk I/O error"],
    );
  });

  it("splits a queue longer than its bound into several commits, in order", async () => {
    const groups: string[][] = [];
    const writes = new GroupCommit(recordingCommitter(groups), 2);
    await Promise.all(["a", "b", "c", "d", "e"].map((write) => writes.submit(write)));
    assert.deepEqual(groups, [["a", "b"], ["c", "d"], ["e"]]);
  });

  it("commits what is queued when flushed, without waiting for the turn to end", async () => {
    const groups: string[][] = [];
    const writes = new GroupCommit(recordingCommitter(groups), 100);
    const pending = writes.submit("a");
    writes.flush();
    assert.deepEqual(groups, [["a"]]);
    assert.equal(await pending, "a stored");
  });
});
