import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Logger, MemorySink } from "../../runtime/logger.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { type DebugSources, DebugStateFeed, type DebugUpdate } from "./debug-state-feed.ts";

/** A kubelet and a controller whose states the test sets, counting the reads. */
function fakeSources() {
  const states = new Map<string, object | Error>([
    ["attachdetach-controller", { operations: [] }],
    ["kubelet/node-1", { operations: [] }],
  ]);
  let reads = 0;
  const sources: DebugSources = {
    components: async () => [...states.keys()],
    read: async (component) => {
      reads++;
      const state = states.get(component);
      if (state instanceof Error) throw state;
      if (state === undefined) throw new Error("gone");
      return state;
    },
  };
  return { states, sources, reads: () => reads };
}

function feedOf(sources: DebugSources, clock: VirtualClock): DebugStateFeed {
  return new DebugStateFeed(sources, clock, new Logger({ clock, sink: new MemorySink(), level: "debug" }), 200);
}

describe("the debug state feed", () => {
  it("reads nothing while no page listens, and stops reading when the last one leaves", async () => {
    const clock = new VirtualClock();
    const fake = fakeSources();
    const feed = feedOf(fake.sources, clock);
    await clock.advanceBy(5_000);
    assert.equal(fake.reads(), 0);
    const stop = feed.subscribe(() => undefined);
    await clock.advanceBy(1_000);
    assert.ok(fake.reads() >= 8, `${fake.reads()} reads in a second`);
    stop();
    const before = fake.reads();
    await clock.advanceBy(5_000);
    assert.equal(fake.reads(), before);
  });

  it("tells each page only what changed, an operation of 400 ms included, with one read for all pages", async () => {
    const clock = new VirtualClock();
    const fake = fakeSources();
    const feed = feedOf(fake.sources, clock);
    const first: DebugUpdate[][] = [];
    const second: DebugUpdate[][] = [];
    feed.subscribe((updates) => first.push([...updates]));
    await clock.advanceBy(1_000);
    assert.deepEqual(
      first.flat().map((update) => update.component),
      ["attachdetach-controller", "kubelet/node-1"],
    );
    // A second page gets the current states at once; the reads are the same as for one page.
    const readsBefore = fake.reads();
    feed.subscribe((updates) => second.push([...updates]));
    assert.equal(second.flat().length, 2);
    await clock.advanceBy(1_000);
    assert.equal(fake.reads() - readsBefore, 10, "5 passes in a second, 2 components each, whatever the pages");
    assert.equal(first.length, 1, "nothing changed: nothing sent");
    // Every read of a state carries the time it was read at: not a change either.
    fake.states.set("kubelet/node-1", { time: "2026-11-27T14:00:01Z", operations: [] });
    await clock.advanceBy(400);
    fake.states.set("kubelet/node-1", { time: "2026-11-27T14:00:02Z", operations: [] });
    await clock.advanceBy(400);
    assert.equal(first.length, 1, "only the time changed: nothing sent");

    const running = { operations: [{ operationName: "volume_attach", running: true }] };
    fake.states.set("attachdetach-controller", running);
    await clock.advanceBy(400);
    fake.states.set("attachdetach-controller", { operations: [] });
    fake.states.set("kubelet/node-1", new Error('the kubelet of node "node-1" is not running'));
    await clock.advanceBy(400);
    fake.states.delete("kubelet/node-1");
    await clock.advanceBy(400);
    assert.deepEqual(first.slice(1), [
      [{ component: "attachdetach-controller", state: running }],
      [
        { component: "attachdetach-controller", state: { operations: [] } },
        {
          component: "kubelet/node-1",
          unreadable: '/api/v1/nodes/node-1/proxy/debug/volumemanager: the kubelet of node "node-1" is not running',
        },
      ],
      [{ component: "kubelet/node-1" }],
    ]);
    assert.deepEqual(second.slice(1), first.slice(1));
  });
});
