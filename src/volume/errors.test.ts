import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  isMountPreConditionFailed,
  isOperationFinishedError,
  isTransientOperationFailure,
  isUncertainProgressError,
  MountPreConditionFailed,
  TransientOperationFailure,
  UncertainProgressError,
} from "./errors.ts";

describe("volume operation error classes", () => {
  it("treats uncertain and transient failures as unfinished, everything else as final", () => {
    assert.equal(isOperationFinishedError(new UncertainProgressError("rpc error: code = DeadlineExceeded")), false);
    assert.equal(isOperationFinishedError(new TransientOperationFailure("driver not registered")), false);
    assert.equal(isOperationFinishedError(new Error("mount failed: exit status 32")), true);
    assert.equal(isOperationFinishedError(new MountPreConditionFailed("in use by another pod")), true);
  });

  it("tells the classes apart and keeps the cause", () => {
    const cause = new Error("timeout");
    const uncertain = new UncertainProgressError("mount may still complete", { cause });
    assert.equal(isUncertainProgressError(uncertain), true);
    assert.equal(isTransientOperationFailure(uncertain), false);
    assert.equal(isMountPreConditionFailed(new MountPreConditionFailed("x")), true);
    assert.equal(uncertain.cause, cause);
    assert.equal(uncertain.message, "mount may still complete");
  });
});
