import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Logger, MemorySink } from "../runtime/logger.ts";
import { VirtualClock } from "../runtime/virtual-clock.ts";
import { nodeAddressWhenServerReachable } from "./node-address.ts";

const unreachable = "cannot reach the API server at http://10.0.0.1:6443: connect ECONNREFUSED 10.0.0.1:6443";

describe("nodeAddressWhenServerReachable", () => {
  it("tries again after 100 ms, doubling up to 7 s, logging each failure, until the server answers", async () => {
    const clock = new VirtualClock();
    const sink = new MemorySink();
    const startMs = clock.now();
    const attemptsAtMs: number[] = [];
    const address = nodeAddressWhenServerReachable({
      serverUrls: "http://10.0.0.1:6443",
      clock,
      logger: new Logger({ clock, sink }),
      keepTrying: () => true,
      reach: async (urls) => {
        assert.equal(urls, "http://10.0.0.1:6443");
        attemptsAtMs.push(clock.now() - startMs);
        if (clock.now() - startMs < 15_000) throw new Error(unreachable);
        return "10.0.0.7";
      },
    });
    await clock.advanceBy(30_000);
    assert.equal(await address, "10.0.0.7");
    // The server answers from 15 s on. Waits of 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4 s, then 7 s.
    assert.deepEqual(attemptsAtMs, [0, 100, 300, 700, 1_500, 3_100, 6_300, 12_700, 19_700]);
    const failures = sink.records.filter((record) => record.level === "error");
    assert.equal(failures.length, 8, "one line per failed attempt");
    assert.deepEqual(Object.fromEntries(failures[7]?.fields ?? []), { error: unreachable, retryInMs: "7000" });
    assert.match(failures[0]?.message ?? "", /Unable to reach the API server/);
  });

  it("stops trying, with no address, once the node is told to stop", async () => {
    const clock = new VirtualClock();
    let stopped = false;
    let attempts = 0;
    const address = nodeAddressWhenServerReachable({
      serverUrls: "http://10.0.0.1:6443",
      clock,
      logger: new Logger({ clock, sink: new MemorySink() }),
      keepTrying: () => !stopped,
      reach: async () => {
        attempts++;
        throw new Error(unreachable);
      },
    });
    await clock.advanceBy(1_000);
    stopped = true;
    await clock.advanceBy(60_000);
    assert.equal(await address, undefined);
    assert.equal(attempts, 4, "attempts at 0, 0.1, 0.3 and 0.7 s; none once stopped");
  });
});
