import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type FaultSchedule, formatFaultSchedule, parseFaultSchedule } from "./fault-schedule.ts";

describe("fault schedules on the command line", () => {
  it("reads back what it prints", () => {
    const schedule: FaultSchedule = [
      { atMs: 1_000, fault: "kubelet-restart", params: { node: "node-a" } },
      { atMs: 5_000, fault: "nfs-server-down", params: { server: "10.0.9.1" }, healAtMs: 65_000 },
    ];
    const text = formatFaultSchedule(schedule);
    assert.equal(
      text,
      '[{"atMs":1000,"fault":"kubelet-restart","params":{"node":"node-a"}},' +
        '{"atMs":5000,"fault":"nfs-server-down","params":{"server":"10.0.9.1"},"healAtMs":65000}]',
    );
    assert.deepEqual(parseFaultSchedule(text, "--replay"), schedule);
  });

  it("names the entry and the field that is wrong", () => {
    const cases: Array<[string, RegExp]> = [
      ["{", /^--replay: not valid JSON/],
      ['{"atMs":1}', /^--replay: expected a JSON array/],
      [
        '[{"atMs":-5,"fault":"x","params":{}}]',
        /^--replay\[0\]\.atMs: expected a whole number of milliseconds >= 0, got -5$/,
      ],
      ['[{"atMs":5,"fault":"","params":{}}]', /^--replay\[0\]\.fault: expected the name of a fault/],
      ['[{"atMs":5,"fault":"x","params":{"node":["a"]}}]', /^--replay\[0\]\.params\.node: expected a string/],
      ['[{"atMs":5,"fault":"x","params":{},"healAtMs":1}]', /^--replay\[0\]\.healAtMs: 1 is before atMs 5/],
      ['[{"atMs":5,"fault":"x","params":{},"at":1}]', /^--replay\[0\]\.at: unknown field/],
    ];
    for (const [text, message] of cases) assert.throws(() => parseFaultSchedule(text, "--replay"), { message });
  });
});
