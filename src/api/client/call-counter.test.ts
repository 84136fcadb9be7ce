import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CallCounter } from "./call-counter.ts";

describe("CallCounter", () => {
  it("counts by verb and resource and reports them readably", () => {
    const calls = new CallCounter();
    calls.record("get", "pods");
    calls.record("get", "pods");
    calls.record("update", "pods/status");
    calls.record("list", "nodes");
    assert.equal(calls.count("get", "pods"), 2);
    assert.equal(calls.count("get"), 2);
    assert.equal(calls.count(undefined, "pods/status"), 1);
    assert.equal(calls.total(), 4);
    assert.equal(calls.describe(), "get pods=2, list nodes=1, update pods/status=1");
    calls.reset();
    assert.equal(calls.total(), 0);
    assert.equal(calls.describe(), "no API calls");
  });
});
