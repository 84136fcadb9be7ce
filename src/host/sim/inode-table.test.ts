import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rng } from "../../runtime/rng.ts";
import { InodeTable } from "./inode-table.ts";

describe("InodeTable", () => {
  it("finds inodes by number from the root's on", () => {
    const table = new InodeTable<string>(2);
    table.set(2, "root");
    table.set(5, "file");
    assert.equal(table.get(2), "root");
    assert.equal(table.get(5), "file");
    assert.equal(table.get(3), undefined);
    assert.equal(table.size, 2);
    assert.equal(table.delete(5), true);
    assert.equal(table.delete(5), false);
    assert.equal(table.size, 1);
  });

  it("refuses a number below the first", () => {
    assert.throws(() => new InodeTable<string>(2).set(1, "x"), /inode number 1 is below the first, 2/);
  });

  for (const deleteShare of [0.1, 0.5, 0.9]) {
    it(`holds exactly what a Map does as numbers are handed out and freed (${deleteShare} of steps free one)`, () => {
      const rng = new Rng(Math.round(deleteShare * 1000));
      const random = () => rng.next();
      const table = new InodeTable<string>(2);
      const reference = new Map<number, string>();
      let next = 2;
      for (let step = 0; step < 20_000; step++) {
        if (random() < deleteShare && reference.size > 0) {
          // Free a live number, or now and then one that is already gone.
          const ino = 2 + Math.floor(random() * (next - 2));
          assert.equal(table.delete(ino), reference.delete(ino), `step ${step}: delete ${ino}`);
        } else if (random() < 0.05 && reference.size > 0) {
          const ino = [...reference.keys()][Math.floor(random() * reference.size)] as number;
          table.set(ino, `replaced ${step}`);
          reference.set(ino, `replaced ${step}`);
        } else {
          table.set(next, `inode ${next}`);
          reference.set(next, `inode ${next}`);
          next++;
        }
        assert.equal(table.size, reference.size, `step ${step}: size`);
        const probe = 2 + Math.floor(random() * (next - 1));
        assert.equal(table.get(probe), reference.get(probe), `step ${step}: get ${probe}`);
      }
      for (let ino = 2; ino <= next; ino++) assert.equal(table.get(ino), reference.get(ino));
    });
  }
});
