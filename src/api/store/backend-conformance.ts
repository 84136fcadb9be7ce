/**
 * The contract of backend.ts, checked the same way for every KVBackend (memory, SQLite, later
 * etcd): revisions, compare-and-swap, ordered prefix lists and pages, reads from the past,
 * compaction, and watch delivery.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rng } from "../../runtime/rng.ts";
import { isApiError } from "../errors.ts";
import type { KObject } from "../objects.ts";
import { BackendConflict, type BackendEntry, type BackendEvent, type KVBackend } from "./backend.ts";

interface BackendFixture {
  backend: KVBackend;
  /** Closes the backend and opens it again on the same data; absent for backends that keep nothing. */
  reopen?: () => Promise<KVBackend>;
  dispose(): Promise<void>;
}

type MakeBackend = (options: { historyWindowRevisions: number }) => Promise<BackendFixture>;

/** Large enough that no scenario but the compaction one reaches it. */
const roomyWindowRevisions = 100_000;

function object(name: string, data: Record<string, string> = {}): KObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data };
}

/** Lets every queued watch delivery happen (deliveries are microtasks). */
async function deliveries(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) await Promise.resolve();
}

function keysOf(entries: readonly BackendEntry[]): string[] {
  return entries.map((entry) => entry.key);
}

function summary(events: readonly BackendEvent[]): string[] {
  return events.map((event) => `${event.revision} ${event.type} ${event.key}`);
}

interface BackendConformanceOptions {
  /** The backend keeps its data across a close and reopen (the fixture provides `reopen`). */
  persistent?: boolean;
  /** The revision of a fresh, empty backend: 0, or 1 for etcd (whose first write is revision 2). */
  emptyRevision?: number;
  /** Writes are acknowledged one by one (over a network), so a burst need not arrive as one batch. */
  separateAcknowledgements?: boolean;
}

export function describeBackendConformance(
  name: string,
  makeBackend: MakeBackend,
  options: BackendConformanceOptions = {},
): void {
  /** The revision of a fresh backend's `n`th write. */
  const r = (n: number): number => (options.emptyRevision ?? 0) + n;
  const eventLines = (...lines: [number, string][]): string[] => lines.map(([n, rest]) => `${r(n)} ${rest}`);
  function scenario(
    title: string,
    body: (fixture: BackendFixture) => Promise<void>,
    windowRevisions = roomyWindowRevisions,
  ): void {
    it(title, async () => {
      const fixture = await makeBackend({ historyWindowRevisions: windowRevisions });
      try {
        await body(fixture);
      } finally {
        await fixture.dispose();
      }
    });
  }

  describe(`KVBackend conformance: ${name}`, () => {
    scenario("stamps each write with the next revision and freezes what it stores", async ({ backend }) => {
      assert.equal(backend.revision(), r(0));
      const input = object("a", { k: "v" });
      const created = await backend.create("/r/a", input);
      assert.equal(created.modRevision, r(1));
      assert.equal(created.createRevision, r(1));
      assert.equal(created.object.metadata?.resourceVersion, String(r(1)));
      assert.ok(Object.isFrozen(created.object) && Object.isFrozen(created.object.data));
      assert.equal(Object.isFrozen(input.data), false, "the caller's nested objects are copied, not frozen");
      const updated = await backend.update("/r/a", { ...created.object, data: { k: "w" } }, r(1));
      assert.deepEqual([updated.createRevision, updated.modRevision], [r(1), r(2)]);
      assert.deepEqual(await backend.get("/r/a"), updated);
      const deleted = await backend.delete("/r/a", r(2));
      assert.deepEqual([deleted.modRevision, deleted.object.metadata?.resourceVersion], [r(3), String(r(3))]);
      assert.deepEqual(deleted.object.data, { k: "w" });
      assert.equal(await backend.get("/r/a"), undefined);
      assert.equal(backend.revision(), r(3));
    });

    scenario("refuses stale or impossible writes with BackendConflict, changing nothing", async ({ backend }) => {
      const created = await backend.create("/r/a", object("a"));
      await assert.rejects(backend.create("/r/a", object("a")), (err: unknown) => {
        return err instanceof BackendConflict && err.current?.modRevision === created.modRevision;
      });
      await assert.rejects(backend.update("/r/a", object("a"), 7), BackendConflict);
      await assert.rejects(backend.delete("/r/a", 7), BackendConflict);
      await assert.rejects(backend.update("/r/missing", object("m"), r(1)), (err: unknown) => {
        return err instanceof BackendConflict && err.current === undefined;
      });
      assert.equal(backend.revision(), r(1));
      assert.deepEqual(await backend.get("/r/a"), created);
    });

    scenario("lists a prefix in key order, in pages", async ({ backend }) => {
      for (const key of ["/r/b/2", "/r/a/1", "/r/b/1", "/r/bb/1", "/r/b/3", "/r/c"])
        await backend.create(key, object(key));
      assert.deepEqual(keysOf((await backend.list("/r/b/")).entries), ["/r/b/1", "/r/b/2", "/r/b/3"]);
      assert.deepEqual(keysOf((await backend.list("/r/")).entries).length, 6);
      const first = await backend.list("/r/b", undefined, { limit: 2 });
      assert.deepEqual(keysOf(first.entries), ["/r/b/1", "/r/b/2"]);
      assert.equal(first.more, true);
      const rest = await backend.list("/r/b", undefined, { startKey: "/r/b/2\u0000", limit: 10 });
      assert.deepEqual(keysOf(rest.entries), ["/r/b/3", "/r/bb/1"]);
      assert.equal(rest.more, false);
      assert.equal(rest.revision, r(6));
    });

    scenario("reads any retained past revision exactly as it was", async ({ backend }) => {
      const rng = new Rng(11);
      const snapshots = new Map<number, string>();
      const snapshot = async (revision?: number, page?: { limit: number }): Promise<string> => {
        const list = await backend.list("/r/x/", revision, page);
        return JSON.stringify(list.entries);
      };
      for (let step = 0; step < 300; step++) {
        const key = `/r/x/${rng.int(0, 15)}`;
        const current = await backend.get(key);
        if (current === undefined) await backend.create(key, object(key, { step: String(step) }));
        else if (rng.chance(0.3)) await backend.delete(key, current.modRevision);
        else await backend.update(key, { ...current.object, data: { step: String(step) } }, current.modRevision);
        if (rng.chance(0.5)) await backend.create(`/r/y/${step}`, object("noise"));
        if (step % 20 === 0) snapshots.set(backend.revision(), await snapshot());
      }
      for (const [revision, expected] of snapshots) {
        assert.equal(await snapshot(revision), expected, `list at revision ${revision}`);
        const paged = await backend.list("/r/x/", revision, { limit: 3 });
        assert.equal(JSON.stringify(paged.entries), JSON.stringify(JSON.parse(expected).slice(0, 3)));
        assert.equal(paged.more, (JSON.parse(expected) as unknown[]).length > 3, `more at revision ${revision}`);
      }
      await assert.rejects(backend.list("/r/x/", backend.revision() + 1), (err: unknown) => isApiError(err, "Timeout"));
    });

    scenario(
      "watch: history after the start revision, then live events, in order, never inside a write",
      async ({ backend }) => {
        await backend.create("/r/a", object("a"));
        const b = await backend.create("/r/b", object("b"));
        await backend.create("/other/z", object("z"));
        await backend.update("/r/b", object("b", { k: "v" }), b.modRevision);
        const batches: BackendEvent[][] = [];
        const watch = backend.watch("/r/", r(1), (events) => batches.push([...events]));
        const writing = backend.create("/r/c", object("c"));
        assert.equal(batches.length, 0, "nothing is delivered synchronously");
        await writing;
        await backend.create("/r/d", object("d"));
        await deliveries();
        assert.deepEqual(
          summary(batches.flat()),
          eventLines([2, "put /r/b"], [4, "put /r/b"], [5, "put /r/c"], [6, "put /r/d"]),
        );
        const modified = batches.flat()[1] as BackendEvent;
        assert.deepEqual(modified.previous?.data, {});
        assert.equal(modified.createRevision, r(2));
        watch.stop();
        await backend.create("/r/e", object("e"));
        await deliveries();
        assert.equal(batches.flat().length, 4, "no delivery after stop");
      },
    );

    scenario("watch: a burst of writes in one turn arrives as one batch", async ({ backend }) => {
      const batches: string[][] = [];
      backend.watch("/r/", r(0), (events) => batches.push(summary(events)));
      await Promise.all([backend.create("/r/a", object("a")), backend.create("/r/b", object("b"))]);
      await deliveries();
      // The two writes may commit in either order; each is delivered once, in revision order.
      const seen = batches.flat();
      assert.deepEqual(
        seen.map((line) => line.split(" ")[0]),
        [r(1), r(2)].map(String),
      );
      assert.deepEqual(seen.map((line) => line.split(" ")[2]).sort(), ["/r/a", "/r/b"]);
      // Over a network each write is acknowledged on its own, so only in-process backends batch them.
      if (!options.separateAcknowledgements)
        assert.deepEqual(
          batches.map((batch) => batch.length),
          [2],
        );
    });

    scenario("watch: a routed watch still sees objects entering and leaving its value", async ({ backend }) => {
      const read = (o: KObject): string => (o.data as Record<string, string> | undefined)?.node ?? "";
      const seen: string[] = [];
      backend.watch("/r/", r(0), (events) => seen.push(...summary(events)), {
        route: { name: "node", value: "n1", read },
      });
      const a = await backend.create("/r/a", object("a", { node: "n2" }));
      const a2 = await backend.update("/r/a", object("a", { node: "n1" }), a.modRevision);
      await backend.create("/r/b", object("b", { node: "n3" }));
      const a3 = await backend.update("/r/a", object("a", { node: "n4" }), a2.modRevision);
      await backend.delete("/r/a", a3.modRevision);
      await deliveries();
      assert.deepEqual(seen, eventLines([2, "put /r/a"], [4, "put /r/a"]));
    });

    scenario("watch: progress moves on with writes elsewhere", async ({ backend }) => {
      const watch = backend.watch("/r/", r(0), () => undefined);
      await backend.create("/other/a", object("a"));
      await backend.create("/other/b", object("b"));
      await deliveries();
      assert.equal(watch.progressRevision(), r(2));
    });

    scenario(
      "compacts automatically to the history window; older reads are Gone",
      async ({ backend }) => {
        const created = await backend.create("/r/a", object("a"));
        let modRevision = created.modRevision;
        for (let i = 0; i < 40; i++)
          modRevision = (await backend.update("/r/a", object("a", { i: String(i) }), modRevision)).modRevision;
        const compacted = backend.compactedRevision();
        assert.ok(compacted > 0, "history was compacted");
        assert.ok(compacted <= backend.revision() - 5, "the window is kept");
        const gone = (err: unknown): boolean =>
          isApiError(err, "Gone") && err.message.includes("too old resource version");
        await assert.rejects(backend.list("/r/", compacted - 1), gone);
        assert.throws(() => backend.watch("/r/", compacted - 1, () => undefined), gone);
        const windowStart = backend.revision() - 5;
        assert.equal((await backend.list("/r/", windowStart)).entries[0]?.modRevision, windowStart);
        await backend.compact(backend.revision());
        assert.equal(backend.compactedRevision(), backend.revision());
        assert.equal((await backend.list("/r/")).entries.length, 1, "compaction keeps current data");
      },
      5,
    );

    scenario("refuses work once closed", async ({ backend }) => {
      await backend.create("/r/a", object("a"));
      await backend.close();
      await assert.rejects(backend.get("/r/a"), /closed/);
    });

    if (!options.persistent) return;
    scenario("persists objects, the revision and the compaction point across a reopen", async (fixture) => {
      assert.ok(fixture.reopen, "a persistent backend's fixture provides reopen");
      const created = await fixture.backend.create("/r/a", object("a"));
      await fixture.backend.update("/r/a", object("a", { k: "v" }), created.modRevision);
      await fixture.backend.compact(r(1));
      const reopened = await fixture.reopen();
      assert.equal(reopened.revision(), r(2));
      assert.equal(reopened.compactedRevision(), r(1));
      assert.deepEqual((await reopened.get("/r/a"))?.object.data, { k: "v" });
      assert.equal((await reopened.create("/r/b", object("b"))).modRevision, r(3));
    });
  });
}
