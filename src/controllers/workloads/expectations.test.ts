import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { ControllerExpectations } from "./expectations.ts";

describe("controller expectations", () => {
  it("holds a controller back until its creations and deletions are observed", () => {
    const expectations = new ControllerExpectations(new VirtualClock());
    assert.equal(expectations.satisfied("default/web"), true);
    expectations.expectCreations("default/web", 2);
    expectations.creationObserved("default/web");
    assert.equal(expectations.satisfied("default/web"), false);
    expectations.creationObserved("default/web");
    assert.equal(expectations.satisfied("default/web"), true);

    expectations.expectDeletions("default/web", ["default/web-a"]);
    expectations.deletionObserved("default/web", "default/web-b");
    assert.equal(expectations.satisfied("default/web"), false, "another pod's deletion does not count");
    expectations.deletionObserved("default/web", "default/web-a");
    assert.equal(expectations.satisfied("default/web"), true);
  });

  it("gives up waiting after the expectations timeout, so a lost event cannot stall a controller", async () => {
    const clock = new VirtualClock();
    const expectations = new ControllerExpectations(clock);
    expectations.expectCreations("default/web", 1);
    // controller_utils.go ExpectationsTimeout: 5 min.
    await clock.advanceBy(5 * 60_000);
    assert.equal(expectations.satisfied("default/web"), false);
    await clock.advanceBy(1);
    assert.equal(expectations.satisfied("default/web"), true);
  });
});
