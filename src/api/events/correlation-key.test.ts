import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { correlationKey, keyPrefix } from "./correlation-key.ts";

describe("correlationKey", () => {
  it("gives the same key for the same fields, run after run", () => {
    const fields = ["Pod", "default", "app-1", "3f9c", "v1", "", "Normal", "Scheduled", "assigned to node-1"];
    assert.equal(correlationKey(fields), correlationKey([...fields]));
    assert.ok(Number.isSafeInteger(correlationKey(fields)));
  });

  it("keeps fields apart where client-go's joined key would", () => {
    assert.notEqual(correlationKey(["ab", "c"]), correlationKey(["a", "bc"]));
    assert.notEqual(correlationKey(["a", "b"]), correlationKey(["a", "b", ""]));
  });

  it("gives 100,000 distinct events 100,000 distinct keys", () => {
    const keys = new Set<number>();
    for (let i = 0; i < 100_000; i++) keys.add(correlationKey(["Pod", "default", `app-${i}`, "Normal", "Pulled"]));
    assert.equal(keys.size, 100_000);
  });

  it("continues from a prefix's state exactly as from the whole list", () => {
    const involved = ["Pod", "default", "app-1", "3f9c", "v1"];
    const prefix = keyPrefix(involved);
    assert.equal(correlationKey(["Normal", "Pulled"], prefix), correlationKey([...involved, "Normal", "Pulled"]));
    assert.equal(correlationKey([], prefix), correlationKey(involved));
    assert.equal(correlationKey(["Pod", "default", "app-1"]), 3061415128407087);
  });
});
