import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { phaseDurations, setupMilestones, teardownMilestones } from "./cluster-phases.ts";

describe("phaseDurations", () => {
  it("charges each phase from the milestone before it", () => {
    const seen = {
      created: 1000,
      schedule: 1010,
      provision: 1300,
      bind: 1320,
      attach: 1400,
      "format+mount-device": 1900,
      publish: 1950,
      "container start": 2200,
    };
    assert.deepEqual(phaseDurations(setupMilestones, seen), {
      schedule: 10,
      provision: 290,
      bind: 20,
      attach: 80,
      "format+mount-device": 500,
      publish: 50,
      "container start": 250,
    });
  });

  it("charges a phase seen before an earlier one nothing, and the next from the latest", () => {
    // The pod's mount vanished from the mount table before the watch saw the container terminated.
    const seen = {
      deleted: 0,
      "container stop": 700,
      unpublish: 650,
      "unmount device": 900,
      "pod removed": 1000,
      detach: 1500,
      "delete volume": 1600,
    };
    assert.deepEqual(phaseDurations(teardownMilestones, seen), {
      "container stop": 700,
      unpublish: 0,
      "unmount device": 200,
      "pod removed": 100,
      detach: 500,
      "delete volume": 100,
    });
  });

  it("makes the phases after a milestone never seen unknown", () => {
    const durations = phaseDurations(setupMilestones, { created: 0, schedule: 5, bind: 40, attach: 60 });
    assert.equal(durations.schedule, 5);
    assert.ok(Number.isNaN(durations.provision ?? 0));
    assert.ok(Number.isNaN(durations.attach ?? 0));
  });
});
