import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Event } from "../../api/objects.ts";
import { causeFirstSeenMs, causeOf } from "./cause-since.ts";

function warning(message: string, firstTimestamp: string, lastTimestamp = firstTimestamp): Event {
  return {
    metadata: { name: "e", namespace: "default" },
    involvedObject: { kind: "Pod", namespace: "default", name: "web" },
    type: "Warning",
    reason: "FailedMount",
    message,
    firstTimestamp,
    lastTimestamp,
  };
}

const detailedError =
  'MountVolume.SetUp failed for volume "nfs211" (UniqueName: "kubernetes.io/nfs/0b84-nfs211") pod "web" (UID: "0b84") : mount failed: exit status 32\nMounting command: mount';

describe("since when a pod is stuck on a cause", () => {
  it("reads the cause after the operation's context, in the backoff's detailed error and in the event alike", () => {
    assert.equal(causeOf(detailedError), "mount failed: exit status 32");
    assert.equal(
      causeOf('MountVolume.SetUp failed for volume "nfs211" : mount failed: exit status 32\nOutput: …'),
      "mount failed: exit status 32",
    );
    assert.equal(causeOf("rpc error: code = Internal desc = disk full"), "rpc error: code = Internal desc = disk full");
  });

  it("is the first event of that cause, not the last retry nor an event of another cause", () => {
    const events = [
      warning('MountVolume.SetUp failed for volume "nfs211" : secret "creds" not found', "2026-01-01T00:00:00Z"),
      warning('MountVolume.SetUp failed for volume "nfs211" : mount failed: exit status 32', "2026-01-01T00:00:05Z"),
      warning(
        'MountVolume.SetUp failed for volume "nfs211" : mount failed: exit status 32',
        "2026-01-01T00:01:05Z",
        "2026-01-01T00:02:00Z",
      ),
    ];
    assert.equal(causeFirstSeenMs(events, detailedError), Date.UTC(2026, 0, 1, 0, 0, 5));
  });

  it("is unknown when no event reports the cause (events expire after an hour)", () => {
    const events = [
      warning('MountVolume.SetUp failed for volume "v" : secret "creds" not found', "2026-01-01T00:00:00Z"),
    ];
    assert.equal(causeFirstSeenMs(events, detailedError), undefined);
    assert.equal(causeFirstSeenMs([], detailedError), undefined);
  });
});
