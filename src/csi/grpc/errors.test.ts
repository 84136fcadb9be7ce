import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  CsiError,
  type CsiStatusName,
  csiErrorFromStatus,
  grpcStatusCodeByName,
  isFinalCsiError,
  toCsiError,
} from "./errors.ts";

describe("CsiError", () => {
  test("prints like a Go gRPC status error, which kubelet messages embed", () => {
    const error = new CsiError("FailedPrecondition", "volume vol-1 is published to node-2");
    assert.equal(error.message, "rpc error: code = FailedPrecondition desc = volume vol-1 is published to node-2");
    assert.equal(error.statusMessage, "volume vol-1 is published to node-2");
    assert.equal(error.grpcCode, 9);
  });

  test("numeric codes map to the gRPC names both ways; unknown numbers become Unknown", () => {
    for (const [name, code] of Object.entries(grpcStatusCodeByName)) {
      if (name === "OK") continue;
      assert.equal(csiErrorFromStatus(code, "m").code, name);
    }
    assert.equal(csiErrorFromStatus(42, "m").code, "Unknown");
    assert.equal(grpcStatusCodeByName.ResourceExhausted, 8, "the spec's '13 RESOURCE_EXHAUSTED' erratum is not copied");
  });

  test("a thrown non-CsiError becomes Unknown with its message, as from a Go server", () => {
    assert.deepEqual(
      [toCsiError(new Error("disk gone")).code, toCsiError(new Error("disk gone")).statusMessage],
      ["Unknown", "disk gone"],
    );
    assert.equal(toCsiError("text").statusMessage, "text");
    const original = new CsiError("Aborted", "busy");
    assert.equal(toCsiError(original), original);
  });
});

describe("isFinalCsiError (kubelet's classification)", () => {
  const nonFinal: CsiStatusName[] = ["Canceled", "DeadlineExceeded", "Unavailable", "ResourceExhausted", "Aborted"];

  test("Canceled, DeadlineExceeded, Unavailable, ResourceExhausted and Aborted may still be in progress", () => {
    for (const code of nonFinal) assert.equal(isFinalCsiError(new CsiError(code, "m")), false, code);
  });

  test("every other code is final", () => {
    const finalCodes = (Object.keys(grpcStatusCodeByName) as (keyof typeof grpcStatusCodeByName)[]).filter(
      (name): name is CsiStatusName => name !== "OK" && !nonFinal.includes(name as CsiStatusName),
    );
    assert.equal(finalCodes.length, 11);
    for (const code of finalCodes) assert.equal(isFinalCsiError(new CsiError(code, "m")), true, code);
  });

  test("an error that is not a gRPC status is not final: the operation may be running", () => {
    assert.equal(isFinalCsiError(new Error("socket hung up")), false);
  });
});
