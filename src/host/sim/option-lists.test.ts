import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sharedOptionList } from "./option-lists.ts";

describe("sharedOptionList", () => {
  it("gives one frozen list per content, whatever array it was given", () => {
    const given = ["rw", "relatime"];
    const first = sharedOptionList(given);
    given.push("noexec");
    assert.deepEqual(first, ["rw", "relatime"]);
    assert.equal(sharedOptionList(["rw", "relatime"]), first);
    assert.ok(Object.isFrozen(first));
    assert.notEqual(sharedOptionList(["ro", "relatime"]), first);
    assert.deepEqual(sharedOptionList(["ro", "relatime"]), ["ro", "relatime"]);
  });

  it("keeps lists apart whose options joined would read alike", () => {
    const one = sharedOptionList(["a\0b"]);
    const two = sharedOptionList(["a", "b"]);
    assert.deepEqual(one, ["a\0b"]);
    assert.deepEqual(two, ["a", "b"]);
  });
});
