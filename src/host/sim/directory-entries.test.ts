/**
 * A directory lists its entries as Linux's readdir on these filesystems would in kvol's model: in
 * the order they were made, a replaced name in its old place, whether the directory is small or
 * has grown past the inline entries.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type DirectoryEntries,
  entryCount,
  entryIno,
  entryNames,
  entryPairs,
  noEntries,
  withEntry,
  withoutEntry,
} from "./directory-entries.ts";

function directoryOf(names: string[]): DirectoryEntries {
  let entries = noEntries;
  names.forEach((name, index) => {
    entries = withEntry(entries, name, 100 + index);
  });
  return entries;
}

for (const size of [3, 20]) {
  describe(`a directory of ${size} entries`, () => {
    const names = Array.from({ length: size }, (_, i) => `entry-${i}`);

    it("lists them in the order they were made and finds each", () => {
      const entries = directoryOf(names);
      assert.deepEqual(entryNames(entries), names);
      assert.equal(entryCount(entries), size);
      assert.equal(entryIno(entries, "entry-2"), 102);
      assert.equal(entryIno(entries, "absent"), undefined);
      assert.deepEqual(entryPairs(entries)[1], ["entry-1", 101]);
    });

    it("keeps a replaced name in its place and puts a name made again last", () => {
      let entries = withEntry(directoryOf(names), "entry-1", 7);
      assert.deepEqual(entryNames(entries), names);
      assert.equal(entryIno(entries, "entry-1"), 7);
      entries = withEntry(withoutEntry(entries, "entry-0"), "entry-0", 8);
      assert.deepEqual(entryNames(entries), [...names.slice(1), "entry-0"]);
    });

    it("is empty again once every entry is removed", () => {
      let entries = directoryOf(names);
      for (const name of names) entries = withoutEntry(entries, name);
      assert.equal(entryCount(entries), 0);
      assert.deepEqual(entryNames(entries), []);
      assert.equal(entries, noEntries);
    });
  });
}

describe("a directory of one entry", () => {
  it("finds it, replaces it in place and lists it alone", () => {
    const one = directoryOf(["only"]);
    assert.deepEqual(entryNames(one), ["only"]);
    assert.equal(entryCount(one), 1);
    assert.equal(entryIno(one, "only"), 100);
    assert.equal(entryIno(one, "other"), undefined);
    assert.deepEqual(entryPairs(withEntry(one, "only", 7)), [["only", 7]]);
    assert.deepEqual(entryNames(withEntry(one, "second", 8)), ["only", "second"]);
    assert.equal(withoutEntry(one, "only"), noEntries);
    assert.equal(withoutEntry(one, "other"), one);
  });

  it("is what a directory of two becomes when either is removed", () => {
    const two = directoryOf(["a", "b"]);
    assert.deepEqual(entryPairs(withoutEntry(two, "a")), [["b", 101]]);
    assert.deepEqual(entryPairs(withoutEntry(two, "b")), [["a", 100]]);
    assert.equal(entryIno(withoutEntry(two, "a"), "b"), 101);
  });
});

describe("a small directory", () => {
  it("is never changed in place: an earlier listing stays as it was", () => {
    const before = directoryOf(["a", "b"]);
    const after = withoutEntry(withEntry(before, "c", 3), "a");
    assert.deepEqual(entryNames(before), ["a", "b"]);
    assert.deepEqual(entryNames(after), ["b", "c"]);
  });
});
