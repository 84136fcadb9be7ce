import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseServerArguments } from "./server-command.ts";
import { parseUpArguments } from "./up-command.ts";

function eventTtlOf(parsed: { eventTtlSeconds?: number } | { help: true }): number | undefined {
  assert.ok(!("help" in parsed));
  return parsed.eventTtlSeconds;
}

describe("--event-ttl", () => {
  it("takes kube-apiserver's duration syntax on kvol up and kvol server", () => {
    assert.equal(eventTtlOf(parseUpArguments(["--event-ttl", "1h0m0s"])), 3600);
    assert.equal(eventTtlOf(parseUpArguments(["--event-ttl=90m"])), 5400);
    assert.equal(eventTtlOf(parseServerArguments(["--event-ttl", "2m30s"])), 150);
  });

  it("leaves the store's 1 h default in place when absent", () => {
    assert.equal(eventTtlOf(parseUpArguments([])), undefined);
  });

  it("refuses a number without a unit, nonsense and anything under a second, naming the flag", () => {
    assert.throws(
      () => parseUpArguments(["--event-ttl", "3600"]),
      /--event-ttl must be a duration like 1h0m0s.*"3600"/,
    );
    assert.throws(() => parseServerArguments(["--event-ttl", "soon"]), /--event-ttl must be a duration.*"soon"/);
    assert.throws(() => parseUpArguments(["--event-ttl", "500ms"]), /--event-ttl must be at least 1s, got "500ms"/);
  });
});
