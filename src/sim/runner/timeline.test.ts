import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Event } from "../../api/objects.ts";
import type { LogRecord } from "../../runtime/logger.ts";
import { TimelineRecorder } from "./timeline.ts";

const startMs = 1_000_000;

function attachEvent(count: number): Event {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: "web-0.1", namespace: "default" },
    involvedObject: { kind: "Pod", namespace: "default", name: "web-0", uid: "uid-1" },
    reason: "SuccessfulAttachVolume",
    message: 'AttachVolume.Attach succeeded for volume "pv-1"',
    source: { component: "attachdetach-controller" },
    type: "Normal",
    count,
  };
}

function log(atMs: number, level: LogRecord["level"], message: string, fields: Array<[string, string]>): LogRecord {
  return { timeMs: startMs + atMs, level, component: "kubelet", message, fields };
}

describe("the timeline", () => {
  it("lists actions, Events and the log lines a user cares about, by time", () => {
    const timeline = new TimelineRecorder();
    timeline.action(2_000, "pod default/web-0", "delete");
    timeline.events([{ event: attachEvent(1), times: 1, atMs: 1_000 }]);
    timeline.events([{ event: attachEvent(2), times: 1, atMs: 2_000 }]);
    timeline.logs(
      [
        log(1_000, "info", "AttachVolume.Attach succeeded for volume pv-1 to node node-a", [["node", "node-a"]]),
        log(1_500, "info", 'MountVolume.SetUp succeeded for volume "pv-1"', [
          ["node", "node-a"],
          ["pod", "uid-1"],
        ]),
        log(1_600, "debug", "reconciler pass", [["node", "node-a"]]),
        log(1_700, "warn", "Warning: not a mountpoint", [["node", "node-a"]]),
        log(9_000, "error", "after the end", []),
      ],
      startMs,
      5_000,
    );
    assert.deepEqual(
      timeline.list().map((entry) => [entry.atMs, entry.component, entry.object, entry.message]),
      [
        [
          1_000,
          "attachdetach-controller",
          "pod default/web-0",
          'SuccessfulAttachVolume: AttachVolume.Attach succeeded for volume "pv-1"',
        ],
        [1_500, "kubelet", "pod default/web-0", 'MountVolume.SetUp succeeded for volume "pv-1"'],
        [1_700, "kubelet", "node node-a", "Warning: not a mountpoint"],
        [2_000, "scenario", "pod default/web-0", "delete"],
        [
          2_000,
          "attachdetach-controller",
          "pod default/web-0",
          'SuccessfulAttachVolume: AttachVolume.Attach succeeded for volume "pv-1" (x2)',
        ],
      ],
    );
  });
});
