import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Event } from "../../api/objects.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import type { Expectation } from "../scenario/model.ts";
import type { EventOccurrence } from "./event-observer.ts";
import { ExpectationTracker, eventMatches, type StepState } from "./expectation-tracker.ts";
import type { Verdict } from "./verdict.ts";

// Event expectations never read the cluster; the steps below carry no cluster at all.
const noCluster = undefined as unknown as Cluster;

function event(reason: string, message: string, pod = "web-0", namespace = "default"): Event {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: `${pod}.1`, namespace },
    involvedObject: { kind: "Pod", namespace, name: pod },
    reason,
    message,
    type: reason.startsWith("Failed") ? "Warning" : "Normal",
  };
}

function step(nowMs: number, occurrences: Array<[Event, number]> = []): StepState {
  return {
    nowMs,
    cluster: noCluster,
    occurrences: occurrences.map(([e, times]): EventOccurrence => ({ event: e, times, atMs: nowMs })),
  };
}

function eventExpectation(fields: Partial<Extract<Expectation, { kind: "event" }>>): Expectation {
  return { kind: "event", matcher: { reason: "FailedMount" }, afterMs: 0, text: "event", line: 7, ...fields };
}

/** The verdict so far, read through a call so assertions between steps do not narrow its type. */
function verdictOf(tracker: ExpectationTracker): Verdict | undefined {
  return tracker.decided;
}

describe("event expectations", () => {
  it("match on reason, type, object (with *) and a message substring", () => {
    const failed = event("FailedMount", "MountVolume.SetUp failed for volume", "user-db-1");
    const pod = { kind: "Pod" as const, namespace: "default", name: "user-db-*" };
    assert.equal(
      eventMatches(failed, { reason: "FailedMount", type: "Warning", object: pod, messageContains: "SetUp" }),
      true,
    );
    assert.equal(eventMatches(failed, { reason: "FailedMount", type: "Normal" }), false);
    assert.equal(eventMatches(failed, { object: { ...pod, namespace: "other" } }), false);
    assert.equal(
      eventMatches(failed, { object: { kind: "Pod", namespace: "" } }),
      true,
      "a kind alone matches any pod",
    );
    assert.equal(eventMatches(failed, { object: { kind: "Node", namespace: "" } }), false);
    assert.equal(eventMatches(failed, { messageContains: "TearDown" }), false);
  });

  it("without a count, pass at the first match inside the window", async () => {
    const tracker = new ExpectationTracker(eventExpectation({ afterMs: 1_000, withinMs: 5_000 }));
    await tracker.step(step(500, [[event("FailedMount", "early"), 1]]));
    assert.equal(verdictOf(tracker), undefined, "before the window");
    await tracker.step(step(2_000, [[event("FailedMount", "in time"), 1]]));
    assert.deepEqual(verdictOf(tracker) && [verdictOf(tracker)?.status, verdictOf(tracker)?.atMs], ["passed", 2_000]);
  });

  it("without a count, fail when the window closes with no match", async () => {
    const tracker = new ExpectationTracker(eventExpectation({ withinMs: 5_000 }));
    await tracker.step(step(1_000, [[event("Scheduled", "assigned"), 1]]));
    await tracker.step(step(5_000));
    assert.deepEqual(
      verdictOf(tracker) && [verdictOf(tracker)?.status, verdictOf(tracker)?.atMs, verdictOf(tracker)?.detail],
      ["failed", 5_000, "no matching Event by 00:00:05.000"],
    );
  });

  it("with a count, add up repeats and decide when the window closes, or as soon as there are too many", async () => {
    const exact = new ExpectationTracker(eventExpectation({ count: 3 }));
    await exact.step(step(1_000, [[event("FailedMount", "a"), 1]]));
    await exact.step(step(2_000, [[event("FailedMount", "a"), 2]]));
    assert.equal(verdictOf(exact), undefined, "decided at the end of the run");
    const verdict = await exact.finish(step(60_000), { stopped: false }, new Set());
    assert.deepEqual([verdict.status, verdict.detail], ["passed", "recorded 3 times"]);

    const none = new ExpectationTracker(eventExpectation({ count: 0 }));
    await none.step(step(4_000, [[event("FailedMount", "it failed"), 1]]));
    assert.deepEqual(verdictOf(none) && [verdictOf(none)?.status, verdictOf(none)?.atMs, verdictOf(none)?.detail], [
      "failed",
      4_000,
      "recorded 1 time, expected 0 times (first at 00:00:04.000: Warning FailedMount: it failed)",
    ]);
  });

  it("are left undecided when an invariant stops the run", async () => {
    const tracker = new ExpectationTracker(eventExpectation({ count: 0 }));
    const verdict = await tracker.finish(
      step(9_000),
      { stopped: true, reason: "invariant violated: x" },
      new Set(["x"]),
    );
    assert.deepEqual(
      [verdict.status, verdict.atMs, verdict.detail],
      ["not decided", undefined, "the run stopped at 00:00:09.000: invariant violated: x"],
    );
  });
});
