import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseRfc3339 } from "../../runtime/clock.ts";
import { DescribeText, describeTime } from "./describe-text.ts";

describe("describeTime", () => {
  it("prints RFC 1123 with a numeric zone, as kubectl describe does", () => {
    assert.equal(describeTime("2020-04-30T09:00:33Z"), "Thu, 30 Apr 2020 09:00:33 +0000");
    assert.equal(describeTime("2026-11-21T18:42:33Z"), "Sat, 21 Nov 2026 18:42:33 +0000");
    assert.equal(describeTime("2024-02-29T00:00:00Z"), "Thu, 29 Feb 2024 00:00:00 +0000");
    assert.equal(describeTime(undefined), "<unset>");
  });
});

describe("DescribeText", () => {
  it("prints maps one entry a line and the events table with repeat counts", () => {
    const now = parseRfc3339("2026-11-21T12:10:00Z");
    const text = new DescribeText()
      .line(0, "Name:", "web-0")
      .map(0, "Labels:", { b: "2", a: "1" })
      .events(
        [
          {
            metadata: { name: "e1" },
            involvedObject: { kind: "Pod", name: "web-0" },
            type: "Warning",
            reason: "FailedMount",
            message: "MountVolume.SetUp failed",
            source: { component: "kubelet", host: "node1" },
            firstTimestamp: "2026-11-21T12:00:00Z",
            lastTimestamp: "2026-11-21T12:08:00Z",
            count: 5,
          },
        ],
        now,
      )
      .toString();
    assert.equal(
      text,
      [
        "Name:    web-0",
        "Labels:  a=1",
        "         b=2",
        "Events:",
        "  Type     Reason       Age               From            Message",
        "  ----     ------       ----              ----            -------",
        "  Warning  FailedMount  2m (x5 over 10m)  kubelet, node1  MountVolume.SetUp failed",
        "",
      ].join("\n"),
    );
  });
});
