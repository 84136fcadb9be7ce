import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { testPod } from "../api/client/testing/test-api.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

const pods = "/api/v1/namespaces/default/pods";

interface StreamedEvent {
  type: string;
  object: { metadata?: { name?: string; resourceVersion?: string }; reason?: string; code?: number };
}

/** Opens a raw watch and collects its lines as they arrive. */
async function openWatch(t: TestServer, query: string) {
  const abort = new AbortController();
  const response = await fetch(`${t.server.url}${pods}?${query}`, { signal: abort.signal });
  const events: StreamedEvent[] = [];
  let ended = false;
  let failure: unknown;
  const reading = (async () => {
    const decoder = new TextDecoder();
    let pending = "";
    try {
      for await (const chunk of response.body ?? []) {
        pending += decoder.decode(chunk as Uint8Array, { stream: true });
        const lines = pending.split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) if (line !== "") events.push(JSON.parse(line) as StreamedEvent);
      }
    } catch (error) {
      // Stopping the watch, or the server closing under it, ends the read; both are expected here.
      if (!abort.signal.aborted) failure = error;
    }
    ended = true;
  })();
  const waitFor = async (count: number) => {
    for (let spin = 0; spin < 500 && events.length < count && !ended; spin++) {
      await t.wallClock.sleep(5);
    }
    return events;
  };
  return { response, events, waitFor, ended: () => ended, failure: () => failure, stop: () => abort.abort(), reading };
}

describe("watch", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  it("streams ADDED, MODIFIED and DELETED in order, one JSON object per line", async () => {
    await t.call("POST", pods, testPod("default", "first"));
    const watch = await openWatch(t, "watch=1");
    assert.equal(watch.response.status, 200);
    assert.equal(watch.response.headers.get("transfer-encoding"), "chunked");
    await watch.waitFor(1);
    await t.call("POST", pods, testPod("default", "web"));
    await t.call("PATCH", `${pods}/web`, { metadata: { labels: { v: "2" } } }, "application/merge-patch+json");
    await t.call("DELETE", `${pods}/web?gracePeriodSeconds=0`);
    const events = await watch.waitFor(5);
    watch.stop();
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.object.metadata?.name}`),
      // The delete first stamps deletionTimestamp (a graceful deletion's update), then removes the pod.
      ["ADDED first", "ADDED web", "MODIFIED web", "MODIFIED web", "DELETED web"],
    );
  });

  it("resumes from a resourceVersion", async () => {
    const created = await t.call("POST", pods, testPod("default", "web"));
    const from = (created.body.metadata as { resourceVersion: string }).resourceVersion;
    await t.call("PATCH", `${pods}/web`, { metadata: { labels: { v: "2" } } }, "application/merge-patch+json");
    const watch = await openWatch(t, `watch=true&resourceVersion=${from}`);
    const events = await watch.waitFor(1);
    assert.deepEqual(
      events.map((e) => e.type),
      ["MODIFIED"],
    );
    watch.stop();
  });

  it("sends an ERROR event with a 410 Gone Status for a compacted resourceVersion", async () => {
    const small = await startTestServer({ historyWindowRevisions: 2 });
    try {
      const first = await small.call("POST", pods, testPod("default", "p0"));
      const from = (first.body.metadata as { resourceVersion: string }).resourceVersion;
      for (let i = 1; i < 6; i++) await small.call("POST", pods, testPod("default", `p${i}`));
      const watch = await openWatch(small, `watch=1&resourceVersion=${from}`);
      assert.equal(watch.response.status, 200);
      const events = await watch.waitFor(1);
      await watch.reading;
      assert.equal(events.length, 1);
      assert.equal(events[0]?.type, "ERROR");
      assert.equal(events[0]?.object.code, 410);
      assert.equal(events[0]?.object.reason, "Gone");
      assert.equal(watch.ended(), true, "the server ends the stream after the ERROR event");
      assert.equal(watch.failure(), undefined, "the server ends the stream cleanly after the ERROR event");
    } finally {
      await small.close();
    }
  });

  it("sends BOOKMARK events when asked for", async () => {
    await t.call("POST", pods, testPod("default", "web"));
    const watch = await openWatch(t, "watch=1&allowWatchBookmarks=true");
    await watch.waitFor(1);
    // The watch cache sends a bookmark about once a minute (cacher.go defaultBookmarkFrequency).
    await t.clock.advanceBy(60_000);
    const events = await watch.waitFor(2);
    watch.stop();
    assert.deepEqual(
      events.map((e) => e.type),
      ["ADDED", "BOOKMARK"],
    );
    assert.equal(events[1]?.object.metadata?.resourceVersion, String(t.store.revision()));
  });

  it("ends the stream when its timeout passes on the server's clock", async () => {
    const watch = await openWatch(t, "watch=1&timeoutSeconds=5");
    await watch.waitFor(0);
    await t.clock.advanceBy(4_000);
    await t.wallClock.sleep(20);
    assert.equal(watch.ended(), false);
    await t.clock.advanceBy(1_000);
    await watch.reading;
    assert.equal(watch.ended(), true);
    assert.equal(watch.failure(), undefined, "the server ends the chunked stream cleanly, it does not reset it");
  });

  // kube-apiserver's --min-request-timeout: 1800 s.
  it("ends a watch without timeoutSeconds after 1800 s", async () => {
    const watch = await openWatch(t, "watch=1");
    await watch.waitFor(0);
    await t.clock.advanceBy(1_800_000 - 1);
    await t.wallClock.sleep(20);
    assert.equal(watch.ended(), false);
    await t.clock.advanceBy(1);
    await watch.reading;
    assert.equal(watch.ended(), true);
    assert.equal(watch.failure(), undefined, "the server ends the chunked stream cleanly, it does not reset it");
  });
});
