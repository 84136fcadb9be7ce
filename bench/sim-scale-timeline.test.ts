/**
 * The sim-scale lifecycle at a small size writes exactly the same objects, in the same order, at the
 * same virtual times, as it did when this hash was recorded: making the simulator faster must not
 * change what it simulates. The hash covers every write (revision, virtual time, verb, kind, key and
 * the whole stored object), so a changed node choice, timestamp, event or status shows here.
 * If a change is meant to alter the timeline, say why in its commit and record the new hash.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import type { Watch } from "../src/api/client/client.ts";
import { objectKey } from "../src/api/objects.ts";
import { RESOURCES } from "../src/api/resources.ts";
import { Cluster } from "../src/cmd/cluster.ts";
import { VirtualClock } from "../src/runtime/virtual-clock.ts";
import { runSimLifecycle } from "./sim-lifecycle.ts";

/** JSON with object keys sorted, so the hash is of content, not of property order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, child]) => child !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, child]) => `${JSON.stringify(key)}:${canonicalJson(child)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

interface TimelineSummary {
  writes: number;
  virtualMs: number;
  sha256: string;
}

async function lifecycleTimeline(nodes: number, podsPerNode: number): Promise<TimelineSummary> {
  // The quiet-timer contract is checked here (the benchmark's measured runs leave it off).
  const clock = new VirtualClock({ checkQuietTimers: true });
  const cluster = await Cluster.start({ seed: 1, logLevel: "warn", clock });
  const lines: { revision: number; line: string }[] = [];
  const start = cluster.clock.now();
  const watches: Watch[] = await Promise.all(
    RESOURCES.map((type) =>
      cluster.client.resource(type.kind).watch({ resourceVersion: String(cluster.store.revision()) }, (event) => {
        if (event.type !== "ADDED" && event.type !== "MODIFIED" && event.type !== "DELETED") return;
        const revision = Number(event.object.metadata?.resourceVersion);
        const at = cluster.clock.now() - start;
        const key = objectKey(event.object);
        lines.push({
          revision,
          line: `${revision} ${at} ${event.type} ${type.kind} ${key} ${canonicalJson(event.object)}`,
        });
      }),
    ),
  );
  await runSimLifecycle(cluster, nodes, podsPerNode);
  const virtualMs = cluster.clock.now() - start;
  for (const watch of watches) watch.stop();
  await cluster.stop();
  lines.sort((a, b) => a.revision - b.revision);
  const hash = createHash("sha256");
  for (const { line } of lines) hash.update(`${line}\n`);
  return { writes: lines.length, virtualMs, sha256: hash.digest("hex") };
}

describe("sim-scale lifecycle timeline", () => {
  it("is the same write for write as recorded for seed 1 at 6 nodes and 4 pods each", async () => {
    const summary = await lifecycleTimeline(6, 4);
    if (process.env.KVOL_PRINT_TIMELINE === "1") console.log(summary);
    assert.deepEqual(summary, {
      writes: 871,
      virtualMs: 30_000,
      sha256: "925d4b45fc0e6817315b20e8187ab184c5790cc094bfb177d6fab09dc402501e",
    });
  });

  // Past 100 nodes the scheduler stops after enough feasible nodes: the node choice is covered too.
  it("is the same write for write as recorded for seed 1 at 120 nodes and 2 pods each", async () => {
    const summary = await lifecycleTimeline(120, 2);
    if (process.env.KVOL_PRINT_TIMELINE === "1") console.log(summary);
    assert.deepEqual(summary, {
      writes: 9481,
      virtualMs: 30_000,
      sha256: "9366d3aea5b99f11e0edb815a421e48e02611746616e85d6cc5e7cf97ddf85c8",
    });
  });
});
