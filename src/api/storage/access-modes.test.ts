import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { accessModesFromKey, accessModesString } from "./access-modes.ts";

describe("access-mode sets", () => {
  it("writes a set as Kubernetes does: deduplicated, abbreviated, in a fixed order", () => {
    assert.equal(accessModesString(["ReadWriteOnce"]), "RWO");
    assert.equal(accessModesString(["ReadOnlyMany", "ReadWriteOnce", "ReadWriteOnce"]), "RWO,ROX");
    assert.equal(
      accessModesString(["ReadWriteOncePod", "ReadWriteMany", "ReadOnlyMany", "ReadWriteOnce"]),
      "RWO,ROX,RWX,RWOP",
    );
  });

  it("leaves out unknown modes, and writes an empty set as nothing", () => {
    assert.equal(accessModesString(["ReadWriteSometimes", "ReadWriteMany"]), "RWX");
    assert.equal(accessModesString([]), "");
    assert.equal(accessModesString(undefined), "");
  });

  it("reads a key back into its modes", () => {
    assert.deepEqual(accessModesFromKey("RWO,RWX"), ["ReadWriteOnce", "ReadWriteMany"]);
  });
});
