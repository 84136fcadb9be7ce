import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changed, problemsOf } from "./testing/test-support.ts";

const event = {
  metadata: { name: "user-db-79f7876cbc-chddt.17a2b3c4d5e6f7a8", namespace: "sock-shop" },
  involvedObject: { kind: "Pod", namespace: "sock-shop", name: "user-db-79f7876cbc-chddt", uid: "1dd2393e" },
  reason: "FailedAttachVolume",
  message: 'Multi-Attach error for volume "user-pv" Volume is already used by pod(s) user-db-79f7876cbc-dl8b8',
  type: "Warning",
  count: 1,
  source: { component: "attachdetach-controller" },
} as Record<string, unknown> & { metadata: Record<string, unknown>; involvedObject: Record<string, unknown> };

describe("Event", () => {
  it("accepts the seed 004 Multi-Attach event", () => {
    assert.deepEqual(problemsOf("Event", event), []);
  });

  it("puts events about cluster-scoped objects in default", () => {
    const aboutVolume = changed(event, (copy) => {
      copy.involvedObject = { kind: "PersistentVolume", name: "user-pv" };
      copy.metadata.namespace = "default";
    });
    assert.deepEqual(problemsOf("Event", aboutVolume), []);
    const elsewhere = changed(aboutVolume, (copy) => {
      copy.metadata.namespace = "sock-shop";
    });
    assert.deepEqual(problemsOf("Event", elsewhere), [
      'involvedObject.namespace: Invalid value: "": does not match event.namespace',
    ]);
  });

  it("requires the reporter of an event with an eventTime", () => {
    const newStyle = changed(event, (copy) => {
      copy.eventTime = "2026-01-01T00:00:00.000000Z";
    });
    assert.deepEqual(problemsOf("Event", newStyle), [
      "reportingComponent: Required value",
      "reportingInstance: Required value",
      "action: Required value",
    ]);
  });

  it("lets the recorder bump a repeated event but not change what it is about", () => {
    const repeated = changed(event, (copy) => {
      copy.count = 2;
      copy.lastTimestamp = "2026-01-01T00:01:00Z";
    });
    assert.deepEqual(problemsOf("Event", repeated, event), []);
    const other = changed(event, (copy) => {
      copy.reason = "SuccessfulAttachVolume";
    });
    assert.deepEqual(problemsOf("Event", other, event), [
      'reason: Invalid value: "SuccessfulAttachVolume": field is immutable',
    ]);
  });
});
