/**
 * Events expire an hour after their last write (kube-apiserver's `--event-ttl` default), in the
 * memory and SQLite stores, on the store's Clock; watchers see the removal as a DELETED event.
 * The etcd store's leases are tested in etcd-event-ttl.test.ts.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { isNotFound } from "../errors.ts";
import type { KObject } from "../objects.ts";
import { type ResourceType, resourceForKind } from "../resources.ts";
import type { KubeStore } from "./kube-store.ts";
import { createMemoryStore } from "./memory-store.ts";
import { openSqliteStore } from "./sqlite-store.ts";
import type { WatchEvent } from "./store.ts";

const minuteMs = 60_000;
const secondMs = 1_000;

function resource(kind: string): ResourceType {
  const type = resourceForKind(kind);
  assert.ok(type, `no resource for kind ${kind}`);
  return type;
}

const events = resource("Event");
const configMaps = resource("ConfigMap");

function event(name: string, count = 1): KObject {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name, namespace: "default" },
    involvedObject: { kind: "Pod", name: "web-0", namespace: "default", apiVersion: "v1" },
    reason: "FailedMount",
    message: 'MountVolume.SetUp failed for volume "data"',
    type: "Warning",
    count,
    source: { component: "kubelet" },
  };
}

async function exists(store: KubeStore, type: ResourceType, name: string): Promise<boolean> {
  try {
    await store.get(type, "default", name);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

interface Fixture {
  clock: VirtualClock;
  store: KubeStore;
  /** Closes the store and opens it again on the same data (SQLite only). */
  reopen?: () => Promise<KubeStore>;
  dispose(): Promise<void>;
}

type MakeFixture = (eventTtlSeconds?: number) => Fixture;

const memory: MakeFixture = (eventTtlSeconds) => {
  const clock = new VirtualClock();
  const store = createMemoryStore({ clock, random: new Rng(7), ...(eventTtlSeconds ? { eventTtlSeconds } : {}) });
  return { clock, store, dispose: () => store.close() };
};

const sqlite: MakeFixture = (eventTtlSeconds) => {
  const directory = mkdtempSync(join(tmpdir(), "kvol-event-ttl-"));
  const clock = new VirtualClock();
  const open = (): KubeStore =>
    openSqliteStore({
      path: join(directory, "store.db"),
      clock,
      random: new Rng(7),
      ...(eventTtlSeconds ? { eventTtlSeconds } : {}),
    });
  const fixture: Fixture = {
    clock,
    store: open(),
    reopen: async () => {
      await fixture.store.close();
      fixture.store = open();
      return fixture.store;
    },
    async dispose() {
      await fixture.store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
  return fixture;
};

for (const [name, make] of [
  ["memory", memory],
  ["sqlite", sqlite],
] as const) {
  describe(`Event TTL, ${name} store`, () => {
    async function withFixture(body: (fixture: Fixture) => Promise<void>, eventTtlSeconds?: number): Promise<void> {
      const fixture = make(eventTtlSeconds);
      try {
        await body(fixture);
      } finally {
        await fixture.dispose();
      }
    }

    it("removes an Event 1 h after it was written, and a watcher sees it DELETED", () =>
      withFixture(async ({ clock, store }) => {
        const seen: string[] = [];
        await store.watch(events, { namespace: "default" }, (watched: WatchEvent) => {
          seen.push(`${watched.type} ${watched.object.metadata?.name}`);
        });
        await store.create(events, event("web-0.1"));
        await clock.advanceBy(59 * minuteMs + 59 * secondMs);
        assert.equal(await exists(store, events, "web-0.1"), true, "still there at 59m59s");
        await clock.advanceBy(secondMs);
        assert.equal(await exists(store, events, "web-0.1"), false, "gone at 1h0m0s");
        assert.deepEqual(seen, ["ADDED web-0.1", "DELETED web-0.1"]);
        assert.deepEqual((await store.list(events)).items, []);
      }));

    it("starts the hour again at each update of the Event (a repeat that raises its count)", () =>
      withFixture(async ({ clock, store }) => {
        const first = await store.create(events, event("web-0.2"));
        await clock.advanceBy(30 * minuteMs);
        await store.update(events, { ...event("web-0.2", 2), metadata: first.metadata });
        await clock.advanceBy(59 * minuteMs);
        assert.equal(await exists(store, events, "web-0.2"), true, "1h29m after the create, 59m after the update");
        await clock.advanceBy(minuteMs);
        assert.equal(await exists(store, events, "web-0.2"), false, "1 h after the update");
      }));

    it("keeps an Event deleted and created again until 1 h after the new create", () =>
      withFixture(async ({ clock, store }) => {
        const first = await store.create(events, event("web-0.5"));
        await clock.advanceBy(30 * minuteMs);
        await store.delete(events, "default", "web-0.5", { preconditions: { uid: first.metadata?.uid } });
        await store.create(events, event("web-0.5"));
        await clock.advanceBy(30 * minuteMs);
        assert.equal(await exists(store, events, "web-0.5"), true, "1 h after the first create, 30m after the second");
        await clock.advanceBy(30 * minuteMs);
        assert.equal(await exists(store, events, "web-0.5"), false, "1 h after the second create");
      }));

    it("keeps every other kind of object", () =>
      withFixture(async ({ clock, store }) => {
        await store.create(configMaps, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings" } });
        await clock.advanceBy(24 * 60 * minuteMs);
        assert.equal(await exists(store, configMaps, "settings"), true);
      }));

    it("keeps an Event for the --event-ttl given instead (2 min)", () =>
      withFixture(async ({ clock, store }) => {
        await store.create(events, event("web-0.3"));
        await clock.advanceBy(2 * minuteMs - secondMs);
        assert.equal(await exists(store, events, "web-0.3"), true);
        await clock.advanceBy(secondMs);
        assert.equal(await exists(store, events, "web-0.3"), false);
      }, 120));

    if (name === "sqlite") {
      it("still removes the Event on time after a restart", () =>
        withFixture(async (fixture) => {
          await fixture.store.create(events, event("web-0.4"));
          await fixture.clock.advanceBy(40 * minuteMs);
          const reopened = await fixture.reopen?.();
          assert.ok(reopened);
          await fixture.clock.advanceBy(20 * minuteMs - secondMs);
          assert.equal(await exists(reopened, events, "web-0.4"), true, "59m59s after it was written");
          await fixture.clock.advanceBy(secondMs);
          assert.equal(await exists(reopened, events, "web-0.4"), false, "1 h after it was written");
        }));
    }
  });
}
