import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rejectsWithCode } from "../testing/driver-test-support.ts";
import { OperationLocks } from "./operation-locks.ts";

describe("OperationLocks", () => {
  it("a second operation on the same key while the first runs is Aborted; other keys and later calls go through", async () => {
    const locks = new OperationLocks();
    let release: () => void = () => undefined;
    const first = locks.run(
      "volume v1",
      () =>
        new Promise<string>((resolve) => {
          release = () => resolve("done");
        }),
    );
    await rejectsWithCode(
      locks.run("volume v1", async () => "second"),
      "Aborted",
      /operation on volume v1 is already in progress/,
    );
    assert.equal(await locks.run("volume v2", async () => "other"), "other");
    release();
    assert.equal(await first, "done");
    assert.equal(await locks.run("volume v1", async () => "again"), "again");
    assert.deepEqual(locks.heldKeys(), []);
  });

  it("a failing operation releases its key", async () => {
    const locks = new OperationLocks();
    await assert.rejects(
      locks.run("k", async () => {
        throw new Error("boom");
      }),
      /boom/,
    );
    assert.equal(await locks.run("k", async () => 1), 1);
  });
});
