/**
 * The watch fan-out of the in-process backends: each write reaches the watches whose prefix it
 * falls under, once, in the order their prefixes were first watched, whatever the watches do to
 * each other while it is delivered.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KObject } from "../objects.ts";
import type { BackendEvent } from "./backend.ts";
import { WatchHub } from "./watch-hub.ts";

function put(key: string, revision: number): BackendEvent {
  const object: KObject = { apiVersion: "v1", kind: "Pod", metadata: { name: key.split("/").pop() } };
  return { type: "put", key, revision, object, previous: undefined, createRevision: revision };
}

/** Lets the hub's microtask flush run. */
async function flushed(): Promise<void> {
  await Promise.resolve();
  await Promise.resolve();
}

describe("WatchHub", () => {
  it("hands a write to every watch whose prefix it falls under, in the order the prefixes were first watched", async () => {
    const hub = new WatchHub(0);
    const seen: string[] = [];
    const watchAs = (name: string, prefix: string) =>
      hub.subscribe(prefix, 0, [], (events) => {
        for (const event of events) seen.push(`${name} ${event.key}`);
      });
    watchAs("pods-in-default", "/registry/pods/default/");
    watchAs("everything", "/registry/");
    watchAs("claims", "/registry/persistentvolumeclaims/");
    watchAs("pods", "/registry/pods/");
    watchAs("pods-in-other", "/registry/pods/other/");
    hub.publish(put("/registry/pods/default/web-0", 1));
    await flushed();
    hub.publish(put("/registry/persistentvolumeclaims/default/data", 2));
    hub.publish(put("/registry/pods/other/web-1", 3));
    await flushed();
    assert.deepEqual(seen, [
      "pods-in-default /registry/pods/default/web-0",
      "everything /registry/pods/default/web-0",
      "pods /registry/pods/default/web-0",
      "everything /registry/persistentvolumeclaims/default/data",
      "everything /registry/pods/other/web-1",
      "claims /registry/persistentvolumeclaims/default/data",
      "pods /registry/pods/other/web-1",
      "pods-in-other /registry/pods/other/web-1",
    ]);
  });

  it("skips a watch stopped by an earlier one during the same delivery, and reaches those after it", async () => {
    const hub = new WatchHub(0);
    const seen: string[] = [];
    // Four groups, delivered in this order. The second stops the only watch of the first (already
    // reached) and of the fourth (not yet reached) while the write is being delivered to it.
    const first = hub.subscribe("/registry/pods/", 0, [], () => seen.push("first"));
    let fourth: { stop(): void } | undefined;
    hub.subscribe("/registry/pods/default/", 0, [], () => {
      seen.push("second");
      first.stop();
      fourth?.stop();
    });
    hub.subscribe("/registry/pods/default/web", 0, [], () => seen.push("third"));
    fourth = hub.subscribe("/registry/pods/default/web-", 0, [], () => seen.push("fourth"));
    hub.publish(put("/registry/pods/default/web-0", 1));
    await flushed();
    assert.deepEqual(seen, ["first", "second", "third"]);
    const again = hub.subscribe("/registry/pods/default/web-", 0, [], () => seen.push("watched again"));
    hub.publish(put("/registry/pods/default/web-0", 2));
    await flushed();
    assert.deepEqual(seen, ["first", "second", "third", "second", "third", "watched again"]);
    again.stop();
  });

  it("gives a watch started during a delivery only the writes after its start", async () => {
    const hub = new WatchHub(0);
    const seen: string[] = [];
    hub.subscribe("/registry/pods/", 0, [], (events) => {
      for (const event of events) seen.push(`pods ${event.revision}`);
      if (events[0]?.revision === 1) {
        hub.subscribe("/registry/nodes/", 1, [], (later) => {
          for (const event of later) seen.push(`nodes ${event.revision}`);
        });
      }
    });
    hub.publish(put("/registry/pods/default/web-0", 1));
    await flushed();
    hub.publish(put("/registry/nodes/node-1", 2));
    await flushed();
    assert.deepEqual(seen, ["pods 1", "nodes 2"]);
  });
});
