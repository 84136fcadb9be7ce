import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RecentStrings } from "./recent-strings.ts";

/** A string equal to `text` but a distinct heap object (built at run time, not a shared literal). */
function freshCopy(text: string): string {
  return [...text].join("");
}

describe("RecentStrings", () => {
  it("returns the first copy of an equal string", () => {
    const strings = new RecentStrings(4);
    const first = freshCopy("Created container app");
    assert.equal(strings.intern(first), first);
    const again = strings.intern(freshCopy("Created container app"));
    assert.equal(again, "Created container app");
    assert.equal(strings.size, 1);
  });

  it("keeps at most its bound, forgetting the string seen first", () => {
    const strings = new RecentStrings(2);
    for (const text of ["a", "b", "c"]) strings.intern(text);
    assert.equal(strings.size, 2);
    strings.intern("a");
    assert.equal(strings.size, 2, "a was forgotten and is remembered again in place of b");
  });

  it("rejects a bound that is not a positive integer", () => {
    assert.throws(() => new RecentStrings(0), /maxEntries must be a positive integer, got 0/);
  });
});
