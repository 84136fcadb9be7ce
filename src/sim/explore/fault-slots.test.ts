import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rng } from "../../runtime/rng.ts";
import { drawFaultSlots } from "./fault-slots.ts";

const spanMs = 5 * 60_000;

describe("drawFaultSlots", () => {
  it("draws one to three faults at whole seconds within the run, in time order, healed before it ends", () => {
    const counts = new Set<number>();
    for (let seed = 1; seed <= 200; seed++) {
      const slots = drawFaultSlots(new Rng(seed), { spanMs });
      counts.add(slots.length);
      for (const [index, slot] of slots.entries()) {
        assert.equal(slot.atMs % 1_000, 0);
        assert.ok(slot.atMs >= 0 && slot.atMs < spanMs);
        if (index > 0) assert.ok(slot.atMs >= (slots[index - 1]?.atMs ?? 0));
        if (slot.healAfterMs !== undefined) {
          assert.ok(slot.healAfterMs >= 10_000, `lasts ${slot.healAfterMs} ms`);
          assert.ok(slot.atMs + slot.healAfterMs < spanMs);
        }
      }
    }
    assert.deepEqual([...counts].sort(), [1, 2, 3]);
  });

  it("draws the same slots for the same seed", () => {
    assert.deepEqual(drawFaultSlots(new Rng(42), { spanMs }), drawFaultSlots(new Rng(42), { spanMs }));
    assert.notDeepEqual(drawFaultSlots(new Rng(42), { spanMs }), drawFaultSlots(new Rng(43), { spanMs }));
  });

  it("refuses a run too short to hold a fault", () => {
    assert.throws(() => drawFaultSlots(new Rng(1), { spanMs: 999 }), /spanMs must be at least 1000/);
  });
});
