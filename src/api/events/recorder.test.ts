import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatRfc3339 } from "../../runtime/clock.ts";
import type { Client, ResourceClient } from "../client/client.ts";
import { newTestApi, type TestApi, testPod } from "../client/testing/test-api.ts";
import type { Event, Pod } from "../objects.ts";
import { aggregateMaxEvents, combinedEventMessagePrefix, spamBurst, spamRefillPerSecond } from "./event-correlator.ts";
import { referenceTo } from "./object-reference.ts";
import { EventRecorder, eventWriteRetrySleepMs } from "./recorder.ts";

async function setup(): Promise<TestApi & { recorder: EventRecorder; pod: Pod }> {
  const api = newTestApi();
  const recorder = new EventRecorder({
    client: api.client,
    clock: api.clock,
    logger: api.logger,
    source: { component: "kubelet", host: "node-1" },
  });
  const pod = await api.client.pods.create(testPod("shop", "web-0", "node-1"));
  return { ...api, recorder, pod };
}

async function storedEvents(api: TestApi, namespace = "shop"): Promise<Event[]> {
  const list = await api.client.events.list({ namespace });
  return list.items.sort((a, b) => (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""));
}

describe("EventRecorder", () => {
  it("creates an Event named after the object and the clock's nanoseconds, fully filled in", async () => {
    const api = await setup();
    api.recorder.event(api.pod, "Warning", "FailedMount", 'MountVolume.SetUp failed for volume "data" : boom');
    await api.recorder.flush();
    const [event, ...rest] = await storedEvents(api);
    assert.equal(rest.length, 0);
    assert.ok(event);
    const nanoseconds = BigInt(api.clock.now()) * 1_000_000n;
    assert.equal(event.metadata.name, `web-0.${nanoseconds.toString(16)}`);
    assert.match(event.metadata.name ?? "", /^web-0\.[0-9a-f]{16}$/);
    assert.equal(event.metadata.namespace, "shop");
    assert.deepEqual(event.involvedObject, {
      kind: "Pod",
      namespace: "shop",
      name: "web-0",
      uid: api.pod.metadata?.uid,
      apiVersion: "v1",
      resourceVersion: api.pod.metadata?.resourceVersion,
    });
    assert.equal(event.type, "Warning");
    assert.equal(event.reason, "FailedMount");
    assert.equal(event.count, 1);
    assert.equal(event.firstTimestamp, formatRfc3339(api.clock.now()));
    assert.equal(event.lastTimestamp, event.firstTimestamp);
    assert.deepEqual(event.source, { component: "kubelet", host: "node-1" });
    assert.equal(event.reportingComponent, "kubelet");
    assert.equal(event.reportingInstance, "node-1");
  });

  it("writes each reference's fields in the order it gives them, a container's with its fieldPath", async () => {
    const api = await setup();
    const { uid, resourceVersion } = api.pod.metadata ?? {};
    api.recorder.eventForReference(referenceTo(api.pod, "spec.containers{app}"), "Normal", "Pulled", "pulled");
    api.recorder.eventForReference(referenceTo(api.pod, "spec.containers{app}"), "Normal", "Created", "created");
    api.recorder.eventForReference({ name: "web-0", namespace: "shop", kind: "Pod" }, "Normal", "Killing", "killing");
    await api.recorder.flush();
    const references = (await storedEvents(api)).map((event) => JSON.stringify(event.involvedObject));
    const container = `{"kind":"Pod","namespace":"shop","name":"web-0","uid":"${uid}","apiVersion":"v1","resourceVersion":"${resourceVersion}","fieldPath":"spec.containers{app}"}`;
    assert.deepEqual(references, [container, container, '{"name":"web-0","namespace":"shop","kind":"Pod"}']);
  });

  it("counts a repeated event on the same Event, patched rather than created again", async () => {
    const api = await setup();
    const firstTime = formatRfc3339(api.clock.now());
    api.recorder.event(api.pod, "Warning", "FailedMount", "timed out");
    await api.recorder.flush();
    await api.clock.advanceBy(125_000);
    api.client.calls.reset();
    api.recorder.event(api.pod, "Warning", "FailedMount", "timed out");
    await api.recorder.flush();

    const events = await storedEvents(api);
    assert.equal(events.length, 1);
    assert.equal(events[0]?.count, 2);
    assert.equal(events[0]?.firstTimestamp, firstTime);
    assert.equal(events[0]?.lastTimestamp, formatRfc3339(api.clock.now()));
    assert.equal(api.client.calls.count("patch", "events"), 1);
    assert.equal(api.client.calls.count("create", "events"), 0);
  });

  it("creates a separate Event for a different message", async () => {
    const api = await setup();
    api.recorder.event(api.pod, "Warning", "FailedMount", "first problem");
    api.recorder.event(api.pod, "Warning", "FailedMount", "second problem");
    await api.recorder.flush();
    const events = await storedEvents(api);
    assert.deepEqual(events.map((e) => [e.message, e.count]).sort(), [
      ["first problem", 1],
      ["second problem", 1],
    ]);
    assert.notEqual(events[0]?.metadata.name, events[1]?.metadata.name, "same instant, still distinct names");
  });

  it(`combines the ${aggregateMaxEvents}th similar event (same reason, new message) into one Event`, async () => {
    const api = await setup();
    for (let i = 1; i <= aggregateMaxEvents + 1; i++) {
      api.recorder.event(api.pod, "Warning", "FailedMount", `attempt ${i} failed`);
      await api.clock.advanceBy(1_000);
    }
    await api.recorder.flush();
    const events = await storedEvents(api);
    const combined = events.filter((e) => e.message?.startsWith(combinedEventMessagePrefix));
    assert.equal(events.length - combined.length, aggregateMaxEvents - 1);
    assert.equal(combined.length, 1);
    assert.equal(combined[0]?.message, `${combinedEventMessagePrefix}attempt ${aggregateMaxEvents + 1} failed`);
    assert.equal(combined[0]?.count, 2);
  });

  it(`drops events about one object beyond a burst of ${spamBurst}, then allows one per refill`, async () => {
    const api = await setup();
    for (let i = 0; i < spamBurst + 5; i++) api.recorder.event(api.pod, "Normal", `Reason${i}`, "m");
    await api.recorder.flush();
    assert.equal((await storedEvents(api)).length, spamBurst);

    await api.clock.advanceBy(1_000 / spamRefillPerSecond);
    api.recorder.event(api.pod, "Normal", "Later", "m");
    api.recorder.event(api.pod, "Normal", "TooSoon", "m");
    await api.recorder.flush();
    const reasons = (await storedEvents(api)).map((e) => e.reason);
    assert.ok(reasons.includes("Later"));
    assert.ok(!reasons.includes("TooSoon"));
  });

  it('puts Events about cluster-scoped objects in "default"', async () => {
    const api = await setup();
    const node = await api.client.nodes.create({ apiVersion: "v1", kind: "Node", metadata: { name: "node-1" } });
    api.recorder.event(node, "Normal", "NodeReady", "Node node-1 status is now: NodeReady");
    await api.recorder.flush();
    const [event] = await storedEvents(api, "default");
    assert.equal(event?.involvedObject.name, "node-1");
    assert.equal(event?.involvedObject.namespace, undefined);
  });

  it("recreates an Event that was deleted, keeping its count", async () => {
    const api = await setup();
    api.recorder.event(api.pod, "Warning", "FailedMount", "again");
    await api.recorder.flush();
    const [first] = await storedEvents(api);
    await api.client.events.delete("shop", first?.metadata.name ?? "");
    api.recorder.event(api.pod, "Warning", "FailedMount", "again");
    await api.recorder.flush();
    const events = await storedEvents(api);
    assert.equal(events.length, 1);
    assert.equal(events[0]?.count, 2);
  });

  it("never throws at the caller: a bad object is logged and dropped", async () => {
    const api = await setup();
    assert.doesNotThrow(() => api.recorder.event({ metadata: { name: "no-kind" } }, "Normal", "Test", "m"));
    await api.recorder.flush();
    assert.equal((await storedEvents(api)).length, 0);
    assert.ok(api.logs.lines().some((line) => line.includes("dropping event") && line.includes("kind is empty")));
  });

  it("logs an Event the server rejects instead of throwing", async () => {
    const api = await setup();
    const badlyNamedPod: Pod = { ...api.pod, metadata: { ...api.pod.metadata, name: "INVALID NAME" } };
    api.recorder.event(badlyNamedPod, "Normal", "Test", "m");
    await api.recorder.flush();
    assert.ok(api.logs.lines().some((line) => line.includes("server rejected event")));
  });

  it("retries a write the API could not receive, pausing on the clock between attempts", async () => {
    const api = await setup();
    let unreachable = 2;
    const events = Object.create(api.client.events) as ResourceClient<Event>;
    events.create = (event) => {
      if (unreachable-- > 0) return Promise.reject(new Error("connection refused"));
      return api.client.events.create(event);
    };
    const client = Object.create(api.client) as Client;
    Object.defineProperty(client, "events", { value: events });
    const recorder = new EventRecorder({ client, clock: api.clock, logger: api.logger, source: { component: "test" } });

    recorder.event(api.pod, "Normal", "Retried", "m");
    const flushed = recorder.flush();
    await api.clock.advanceBy(eventWriteRetrySleepMs * 2);
    await flushed;
    assert.deepEqual(
      (await storedEvents(api)).map((e) => e.reason),
      ["Retried"],
    );
    assert.equal(api.logs.lines().filter((line) => line.includes("unable to write event; retrying")).length, 2);
  });
});
