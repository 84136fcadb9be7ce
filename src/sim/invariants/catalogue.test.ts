import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { allInvariants, invariantNamed, invariantNames } from "./catalogue.ts";

describe("the invariant catalogue", () => {
  it("lists the six invariants by the names scenarios use, each described", () => {
    assert.deepEqual(invariantNames(), [
      "rwo-single-attach",
      "single-writer",
      "mounted-implies-attached",
      "no-detach-while-mounted",
      "bytes-never-lost",
      "no-leftovers-after-teardown",
      "no-leaked-attachment",
    ]);
    for (const invariant of allInvariants) assert.ok(invariant.description.length > 40, invariant.name);
  });

  it("finds an invariant by name, and nothing for an unknown name", () => {
    assert.equal(invariantNamed("bytes-never-lost")?.name, "bytes-never-lost");
    assert.equal(invariantNamed("bytes-lost"), undefined);
  });
});
