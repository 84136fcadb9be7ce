import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { containerProgram } from "./container-program.ts";

describe("containerProgram", () => {
  it("runs forever without a command, or with one it does not model", () => {
    assert.deepEqual(containerProgram({}), { kind: "forever" });
    assert.deepEqual(containerProgram({ command: ["nginx", "-g", "daemon off;"] }), { kind: "forever" });
    assert.deepEqual(containerProgram({ command: ["sleep", "infinity"] }), { kind: "forever" });
  });

  it("finishes after a sleep, with the exit code a script leaves", () => {
    assert.deepEqual(containerProgram({ command: ["sleep", "5"] }), { kind: "exits", afterMs: 5_000, exitCode: 0 });
    assert.deepEqual(containerProgram({ command: ["/bin/false"] }), { kind: "exits", afterMs: 0, exitCode: 1 });
    assert.deepEqual(containerProgram({ command: ["sh", "-c"], args: ["sleep 2m; exit 3"] }), {
      kind: "exits",
      afterMs: 120_000,
      exitCode: 3,
    });
    assert.deepEqual(containerProgram({ command: ["sh", "-c", "exit 1; sleep 10"] }), {
      kind: "exits",
      afterMs: 0,
      exitCode: 1,
    });
  });
});
