/**
 * The behaviour every Store must show, whatever its backend: one suite, run by each backend's
 * test file (`describeStoreConformance("memory", …)`), so the backends cannot drift apart.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatRfc3339 } from "../../runtime/clock.ts";
import type { VirtualClock } from "../../runtime/virtual-clock.ts";
import { isApiError, STALE_OBJECT_MESSAGE, type StatusReason } from "../errors.ts";
import type { KObject } from "../objects.ts";
import { type ResourceType, resourceForKind } from "../resources.ts";
import type { KVBackend } from "./backend.ts";
import { generateNameAlphabet, generateNameSuffixLength, watchBookmarkIntervalMs } from "./constants.ts";
import type { Store, WatchEvent } from "./store.ts";

interface StoreFixture {
  store: Store;
  /** The backend under `store`, for compaction. */
  backend: KVBackend;
  clock: VirtualClock;
  /** Closes the store and opens a new one on the same data; absent for stores that keep nothing. */
  reopen?: () => Promise<{ store: Store; backend: KVBackend }>;
  /** Releases everything (files included). */
  dispose(): Promise<void>;
}

function resource(kind: string): ResourceType {
  const type = resourceForKind(kind);
  assert.ok(type, `no resource for kind ${kind}`);
  return type;
}

const pods = resource("Pod");
const nodes = resource("Node");
const configMaps = resource("ConfigMap");
const events = resource("Event");
const claims = resource("PersistentVolumeClaim");

function pod(
  name: string,
  options: { namespace?: string; nodeName?: string; labels?: Record<string, string> } = {},
): KObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      ...(options.namespace ? { namespace: options.namespace } : {}),
      ...(options.labels ? { labels: options.labels } : {}),
    },
    spec: {
      containers: [{ name: "app", image: "registry.k8s.io/pause:3.9" }],
      ...(options.nodeName ? { nodeName: options.nodeName } : {}),
    },
  };
}

function configMap(name: string, data: Record<string, string> = {}, finalizers?: string[]): KObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...(finalizers ? { finalizers } : {}) }, data };
}

function event(name: string, involvedName: string, reason: string): KObject {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name },
    involvedObject: { kind: "Pod", name: involvedName, namespace: "default", apiVersion: "v1" },
    reason,
    message: `${reason} for ${involvedName}`,
    type: "Normal",
    source: { component: "kubelet" },
  };
}

function nameOf(object: KObject): string {
  return object.metadata?.name ?? "";
}

function rv(object: KObject): number {
  return Number(object.metadata?.resourceVersion);
}

async function rejectsWith(
  promise: Promise<unknown>,
  reason: StatusReason | readonly StatusReason[],
  mentioning?: string | RegExp,
): Promise<void> {
  const reasons: readonly StatusReason[] = typeof reason === "string" ? [reason] : reason;
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(isApiError(err), `expected an ApiError, got ${String(err)}`);
    assert.ok(reasons.includes(err.reason), `expected ${reasons.join(" or ")}, got ${err.reason}: ${err.message}`);
    if (typeof mentioning === "string") assert.ok(err.message.includes(mentioning), `message: ${err.message}`);
    else if (mentioning !== undefined) assert.match(err.message, mentioning);
    return true;
  });
}

/** Records a watch's events; `settle` lets pending deliveries happen. */
class Recorder {
  readonly events: WatchEvent[] = [];
  readonly push = (event: WatchEvent): void => {
    this.events.push(event);
  };
  summary(): string[] {
    return this.events.map((e) => (e.type === "BOOKMARK" ? "BOOKMARK" : `${e.type} ${nameOf(e.object)}`));
  }
}

interface ConformanceOptions {
  /** The store keeps its data across a close and reopen (the fixture provides `reopen`). */
  persistent?: boolean;
}

export function describeStoreConformance(
  name: string,
  makeFixture: () => Promise<StoreFixture>,
  options: ConformanceOptions = {},
): void {
  /** Runs `body` against a fresh store and disposes of it afterwards. */
  function scenario(title: string, body: (fixture: StoreFixture) => Promise<void>): void {
    it(title, async () => {
      const fixture = await makeFixture();
      try {
        await body(fixture);
      } finally {
        await fixture.dispose();
      }
    });
  }

  const settle = (fixture: StoreFixture): Promise<number> => fixture.clock.advanceBy(0);

  describe(`Store conformance: ${name}`, () => {
    describe("create and get", () => {
      scenario("fills in uid, creationTimestamp, namespace, kind and resourceVersion", async ({ store, clock }) => {
        const input: KObject = Object.freeze({ metadata: Object.freeze({ name: "web-0" }), spec: pod("x").spec });
        const created = await store.create(pods, input);
        assert.equal(created.kind, "Pod");
        assert.equal(created.apiVersion, "v1");
        assert.equal(created.metadata?.namespace, "default");
        assert.match(created.metadata?.uid ?? "", /^[0-9a-f-]{36}$/);
        assert.equal(created.metadata?.creationTimestamp, formatRfc3339(clock.now()));
        assert.equal(created.metadata?.resourceVersion, String(store.revision()));
        assert.deepEqual(await store.get(pods, "default", "web-0"), created);
        assert.deepEqual(input.metadata, { name: "web-0" }, "the caller's object is not changed");
      });

      scenario("hands out deeply frozen objects and leaves the caller's objects unfrozen", async ({ store }) => {
        const input = pod("web-0");
        const created = await store.create(pods, input);
        assert.ok(Object.isFrozen(created));
        assert.ok(Object.isFrozen(created.metadata));
        assert.ok(Object.isFrozen((created.spec as { containers: object[] }).containers[0]));
        assert.equal(Object.isFrozen(input.spec), false);
      });

      scenario("gives every object a distinct uid and a higher resourceVersion", async ({ store }) => {
        const a = await store.create(configMaps, configMap("a"));
        const b = await store.create(configMaps, configMap("b"));
        assert.notEqual(a.metadata?.uid, b.metadata?.uid);
        assert.ok(rv(b) > rv(a));
      });

      scenario("refuses a duplicate name with AlreadyExists", async ({ store }) => {
        await store.create(pods, pod("web-0"));
        await rejectsWith(store.create(pods, pod("web-0")), "AlreadyExists", 'pods "web-0" already exists');
        await store.create(pods, pod("web-0", { namespace: "other" }));
      });

      scenario("refuses a resourceVersion, a missing name and a wrong kind", async ({ store }) => {
        const withVersion = { ...pod("a"), metadata: { name: "a", resourceVersion: "5" } };
        await rejectsWith(store.create(pods, withVersion), "BadRequest", "resourceVersion should not be set");
        await rejectsWith(store.create(pods, { ...pod("a"), metadata: {} }), "Invalid", "metadata.name");
        await rejectsWith(store.create(pods, configMap("a")), "BadRequest", "does not match the expected kind (Pod)");
        await rejectsWith(
          store.create(pods, { ...pod("a"), metadata: { name: "a/b" } }),
          "Invalid",
          "may not contain '/'",
        );
      });

      scenario("get of a missing object is NotFound in Kubernetes' words", async ({ store }) => {
        await rejectsWith(store.get(pods, "default", "nope"), "NotFound", 'pods "nope" not found');
        await rejectsWith(
          store.get(resource("StorageClass"), "", "fast"),
          "NotFound",
          'storageclasses.storage.k8s.io "fast" not found',
        );
      });

      scenario("generateName appends five characters of Kubernetes' alphabet", async ({ store }) => {
        const names = new Set<string>();
        for (let i = 0; i < 20; i++) {
          const created = await store.create(pods, { ...pod(""), metadata: { generateName: "web-" } });
          const generated = nameOf(created);
          assert.equal(generated.length, "web-".length + generateNameSuffixLength);
          assert.ok(generated.startsWith("web-"));
          for (const char of generated.slice(4)) assert.ok(generateNameAlphabet.includes(char), generated);
          names.add(generated);
        }
        assert.equal(names.size, 20);
      });

      scenario("starts pods and claims Pending whatever status they were created with", async ({ store }) => {
        const created = await store.create(pods, { ...pod("p"), status: { phase: "Running" } });
        assert.deepEqual(created.status, { phase: "Pending" });
        const claim = await store.create(claims, {
          metadata: { name: "data" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
          status: { phase: "Bound" },
        });
        assert.equal((claim.status as { phase: string }).phase, "Pending");
        const node = await store.create(nodes, { metadata: { name: "node-1" }, status: { phase: "Running" } });
        assert.deepEqual(node.status, { phase: "Running" }, "a node registers with its status");
      });
    });

    describe("update", () => {
      scenario("writes with a higher resourceVersion and keeps identity fields", async ({ store }) => {
        const created = await store.create(configMaps, configMap("cfg", { a: "1" }));
        const updated = await store.update(configMaps, {
          ...created,
          metadata: { ...created.metadata, uid: created.metadata?.uid, creationTimestamp: "2000-01-01T00:00:00Z" },
          data: { a: "2" },
        });
        assert.ok(rv(updated) > rv(created));
        assert.deepEqual(updated.data, { a: "2" });
        assert.equal(updated.metadata?.creationTimestamp, created.metadata?.creationTimestamp);
        assert.equal(updated.metadata?.uid, created.metadata?.uid);
      });

      scenario("refuses a stale resourceVersion with Conflict", async ({ store }) => {
        const created = await store.create(configMaps, configMap("cfg", { a: "1" }));
        await store.update(configMaps, { ...created, data: { a: "2" } });
        await rejectsWith(store.update(configMaps, { ...created, data: { a: "3" } }), "Conflict", STALE_OBJECT_MESSAGE);
        assert.deepEqual((await store.get(configMaps, "default", "cfg")).data, { a: "2" });
      });

      scenario("without a resourceVersion, updates unconditionally", async ({ store }) => {
        const created = await store.create(configMaps, configMap("cfg", { a: "1" }));
        await store.update(configMaps, { ...created, data: { a: "2" } });
        const blind = { ...created, metadata: { name: "cfg", namespace: "default" }, data: { a: "3" } };
        assert.deepEqual((await store.update(configMaps, blind)).data, { a: "3" });
      });

      scenario("refuses an update of a missing object and of another uid", async ({ store }) => {
        await rejectsWith(store.update(configMaps, configMap("ghost")), "NotFound", 'configmaps "ghost" not found');
        const created = await store.create(configMaps, configMap("cfg"));
        const otherUid = { ...created, metadata: { ...created.metadata, uid: "someone-else" } };
        await rejectsWith(store.update(configMaps, otherUid), "Conflict", "Precondition failed: UID in precondition");
      });

      scenario("a write that changes nothing stores nothing", async ({ store }) => {
        const created = await store.create(configMaps, configMap("cfg", { a: "1" }));
        const same = await store.update(configMaps, { ...created, data: { a: "1" } });
        assert.equal(same.metadata?.resourceVersion, created.metadata?.resourceVersion);
        assert.equal(store.revision(), rv(created));
      });

      scenario("bumps generation on spec changes only", async ({ store }) => {
        const created = await store.create(pods, pod("p"));
        assert.equal(created.metadata?.generation, 1);
        const relabeled = await store.update(pods, {
          ...created,
          metadata: { ...created.metadata, labels: { a: "b" } },
        });
        assert.equal(relabeled.metadata?.generation, 1);
        const rescheduled = await store.update(pods, {
          ...relabeled,
          spec: { ...(relabeled.spec as object), nodeName: "n" },
        });
        assert.equal(rescheduled.metadata?.generation, 2);
      });

      scenario("a failed update leaves the stored object intact", async ({ store }) => {
        const created = await store.create(configMaps, configMap("cfg", { a: "1" }, ["example.com/hold"]));
        await rejectsWith(store.update(configMaps, { ...created, kind: "Secret" }), "BadRequest");
        await rejectsWith(
          store.update(configMaps, { ...created, data: { a: () => "x" } }),
          ["BadRequest", "Invalid"],
          /data(\.a|\[a\])/,
        );
        await rejectsWith(
          store.update(configMaps, { ...created, metadata: { ...created.metadata, resourceVersion: "x" } }),
          "BadRequest",
        );
        const deleting = await store.delete(configMaps, "default", "cfg");
        const addFinalizer = {
          ...deleting,
          metadata: { ...deleting.metadata, finalizers: ["example.com/hold", "more"] },
        };
        await rejectsWith(store.update(configMaps, addFinalizer), "Invalid", "no new finalizers can be added");
        assert.deepEqual(await store.get(configMaps, "default", "cfg"), deleting);
      });
    });

    describe("status subresource", () => {
      scenario("the main resource cannot change status", async ({ store }) => {
        const created = await store.create(pods, pod("p"));
        const updated = await store.update(pods, { ...created, status: { phase: "Running" } });
        assert.deepEqual(updated.status, { phase: "Pending" });
      });

      scenario("the status subresource changes status and nothing else", async ({ store }) => {
        const created = await store.create(pods, pod("p"));
        const updated = await store.update(
          pods,
          {
            ...created,
            metadata: { ...created.metadata, labels: { sneaky: "yes" } },
            spec: { ...(created.spec as object), nodeName: "elsewhere" },
            status: { phase: "Running" },
          },
          { subresource: "status" },
        );
        assert.deepEqual(updated.status, { phase: "Running" });
        assert.deepEqual(updated.spec, created.spec);
        assert.equal(updated.metadata?.labels, undefined);
        assert.ok(rv(updated) > rv(created));
        await rejectsWith(
          store.update(pods, { ...created, status: { phase: "Failed" } }, { subresource: "status" }),
          "Conflict",
          STALE_OBJECT_MESSAGE,
        );
      });

      scenario("kinds without a status subresource have none", async ({ store }) => {
        const created = await store.create(configMaps, configMap("cfg"));
        await rejectsWith(store.update(configMaps, created, { subresource: "status" }), "NotFound");
      });
    });

    describe("deletion", () => {
      scenario("a pod on a node waits out its grace period until deleted with grace 0", async ({ store, clock }) => {
        await store.create(pods, pod("web", { nodeName: "node-1" }));
        const deleting = await store.delete(pods, "default", "web");
        assert.equal(deleting.metadata?.deletionGracePeriodSeconds, 30);
        assert.equal(deleting.metadata?.deletionTimestamp, formatRfc3339(clock.now() + 30_000));
        assert.deepEqual(await store.get(pods, "default", "web"), deleting);
        const again = await store.delete(pods, "default", "web");
        assert.equal(again.metadata?.resourceVersion, deleting.metadata?.resourceVersion, "a second delete waits");
        await store.delete(pods, "default", "web", { gracePeriodSeconds: 0 });
        await rejectsWith(store.get(pods, "default", "web"), "NotFound");
      });

      scenario("a pod's own terminationGracePeriodSeconds applies, and may be shortened", async ({ store, clock }) => {
        const spec = { ...(pod("x", { nodeName: "n" }).spec as object), terminationGracePeriodSeconds: 120 };
        await store.create(pods, { ...pod("web"), spec });
        const first = await store.delete(pods, "default", "web");
        assert.equal(first.metadata?.deletionTimestamp, formatRfc3339(clock.now() + 120_000));
        const shorter = await store.delete(pods, "default", "web", { gracePeriodSeconds: 10 });
        assert.equal(shorter.metadata?.deletionGracePeriodSeconds, 10);
        assert.equal(shorter.metadata?.deletionTimestamp, formatRfc3339(clock.now() + 10_000));
      });

      scenario("unscheduled and finished pods go at once", async ({ store }) => {
        await store.create(pods, pod("pending"));
        await store.delete(pods, "default", "pending");
        await rejectsWith(store.get(pods, "default", "pending"), "NotFound");
        const done = await store.create(pods, pod("done", { nodeName: "n" }));
        await store.update(pods, { ...done, status: { phase: "Succeeded" } }, { subresource: "status" });
        await store.delete(pods, "default", "done");
        await rejectsWith(store.get(pods, "default", "done"), "NotFound");
      });

      scenario("finalizers hold an object until the last one is removed", async ({ store, clock }) => {
        await store.create(configMaps, configMap("cfg", {}, ["example.com/a", "example.com/b"]));
        const deleting = await store.delete(configMaps, "default", "cfg");
        assert.equal(deleting.metadata?.deletionTimestamp, formatRfc3339(clock.now()));
        assert.equal(deleting.metadata?.deletionGracePeriodSeconds, 0);
        const oneLeft = await store.update(configMaps, {
          ...deleting,
          metadata: { ...deleting.metadata, finalizers: ["example.com/b"] },
        });
        assert.deepEqual(oneLeft.metadata?.finalizers, ["example.com/b"]);
        assert.equal(
          oneLeft.metadata?.deletionTimestamp,
          deleting.metadata?.deletionTimestamp,
          "deletionTimestamp stays",
        );
        await store.update(configMaps, { ...oneLeft, metadata: { ...oneLeft.metadata, finalizers: [] } });
        await rejectsWith(store.get(configMaps, "default", "cfg"), "NotFound");
      });

      scenario("an update cannot clear deletionTimestamp", async ({ store }) => {
        await store.create(configMaps, configMap("cfg", {}, ["example.com/a"]));
        const deleting = await store.delete(configMaps, "default", "cfg");
        const metadata = { ...deleting.metadata, deletionTimestamp: undefined };
        const updated = await store.update(configMaps, { ...deleting, metadata, data: { k: "v" } });
        assert.ok(updated.metadata?.deletionTimestamp);
        assert.equal(updated.metadata?.deletionTimestamp, deleting.metadata?.deletionTimestamp);
      });

      scenario("a pod with a finalizer deleted with grace 0 stays until the finalizer goes", async ({ store }) => {
        const created = await store.create(pods, {
          ...pod("web", { nodeName: "n" }),
          metadata: { name: "web", finalizers: ["x.io/f"] },
        });
        const deleting = await store.delete(pods, "default", "web", { gracePeriodSeconds: 0 });
        assert.equal(deleting.metadata?.deletionGracePeriodSeconds, 0);
        assert.equal(nameOf(await store.get(pods, "default", "web")), nameOf(created));
        await store.update(pods, { ...deleting, metadata: { ...deleting.metadata, finalizers: [] } });
        await rejectsWith(store.get(pods, "default", "web"), "NotFound");
      });

      scenario("checks uid and resourceVersion preconditions", async ({ store }) => {
        const created = await store.create(configMaps, configMap("cfg"));
        await rejectsWith(
          store.delete(configMaps, "default", "cfg", { preconditions: { uid: "other" } }),
          "Conflict",
          "UID in the precondition",
        );
        await rejectsWith(
          store.delete(configMaps, "default", "cfg", { preconditions: { resourceVersion: "999" } }),
          "Conflict",
          "ResourceVersion in the precondition",
        );
        const uid = created.metadata?.uid as string;
        await store.delete(configMaps, "default", "cfg", {
          preconditions: { uid, resourceVersion: String(rv(created)) },
        });
        await rejectsWith(store.delete(configMaps, "default", "cfg"), "NotFound");
      });

      scenario("a name still being deleted is AlreadyExists with Kubernetes' hint", async ({ store }) => {
        await store.create(configMaps, configMap("cfg", {}, ["example.com/a"]));
        await store.delete(configMaps, "default", "cfg");
        await rejectsWith(store.create(configMaps, configMap("cfg")), "AlreadyExists", /^object is being deleted: /);
      });
    });

    describe("list and selectors", () => {
      scenario("lists by namespace in name order", async ({ store }) => {
        for (const [name, namespace] of [
          ["b", "x"],
          ["a", "x"],
          ["c", "y"],
          ["a", "y"],
        ] as const) {
          await store.create(pods, pod(name, { namespace }));
        }
        const inX = await store.list(pods, { namespace: "x" });
        assert.deepEqual(inX.items.map(nameOf), ["a", "b"]);
        assert.equal(inX.resourceVersion, String(store.revision()));
        const all = await store.list(pods);
        assert.deepEqual(
          all.items.map((p) => `${p.metadata?.namespace}/${nameOf(p)}`),
          ["x/a", "x/b", "y/a", "y/c"],
        );
      });

      scenario("selects by labels, set-based included", async ({ store }) => {
        await store.create(pods, pod("web", { labels: { app: "web", env: "prod" } }));
        await store.create(pods, pod("db", { labels: { app: "db", env: "prod" } }));
        await store.create(pods, pod("tmp", { labels: { app: "web" } }));
        const select = async (labelSelector: string) => (await store.list(pods, { labelSelector })).items.map(nameOf);
        assert.deepEqual(await select("app=web"), ["tmp", "web"]);
        assert.deepEqual(await select("app in (web,db),env"), ["db", "web"]);
        assert.deepEqual(await select("!env"), ["tmp"]);
        assert.deepEqual(await select("app notin (web)"), ["db"]);
        await rejectsWith(store.list(pods, { labelSelector: "app in (web" }), "BadRequest", "app in");
      });

      scenario("selects pods by spec.nodeName and status.phase", async ({ store }) => {
        await store.create(pods, pod("a", { nodeName: "node-1" }));
        await store.create(pods, pod("b", { nodeName: "node-2" }));
        const c = await store.create(pods, pod("c", { nodeName: "node-1" }));
        await store.update(pods, { ...c, status: { phase: "Running" } }, { subresource: "status" });
        const select = async (fieldSelector: string) => (await store.list(pods, { fieldSelector })).items.map(nameOf);
        assert.deepEqual(await select("spec.nodeName=node-1"), ["a", "c"]);
        assert.deepEqual(await select("spec.nodeName=node-1,status.phase!=Running"), ["a"]);
        assert.deepEqual(await select("status.phase=Running"), ["c"]);
        await rejectsWith(
          store.list(pods, { fieldSelector: "spec.volumes=x" }),
          "BadRequest",
          "field label not supported: spec.volumes",
        );
      });

      scenario("selects events by involvedObject.name and reason", async ({ store }) => {
        await store.create(events, event("e1", "web-0", "Scheduled"));
        await store.create(events, event("e2", "web-1", "FailedMount"));
        await store.create(events, event("e3", "web-0", "FailedMount"));
        const list = await store.list(events, { fieldSelector: "involvedObject.name=web-0,reason=FailedMount" });
        assert.deepEqual(list.items.map(nameOf), ["e3"]);
      });

      scenario("pages with limit and continue over one snapshot", async ({ store }) => {
        for (const name of ["a", "b", "c", "d", "e"]) await store.create(configMaps, configMap(name));
        const first = await store.list(configMaps, { limit: 2 });
        assert.deepEqual(first.items.map(nameOf), ["a", "b"]);
        assert.ok(first.continue);
        await store.create(configMaps, configMap("bb"));
        await store.delete(configMaps, "default", "d");
        const second = await store.list(configMaps, { limit: 2, continue: first.continue });
        assert.deepEqual(second.items.map(nameOf), ["c", "d"], "later writes do not show in a continued list");
        assert.equal(second.resourceVersion, first.resourceVersion);
        const third = await store.list(configMaps, { limit: 2, continue: second.continue });
        assert.deepEqual(third.items.map(nameOf), ["e"]);
        assert.equal(third.continue, undefined);
      });

      scenario("pages count only objects that match the selectors", async ({ store }) => {
        for (let i = 0; i < 9; i++) await store.create(pods, pod(`p${i}`, { labels: { even: String(i % 2 === 0) } }));
        const seen: string[] = [];
        let token: string | undefined;
        for (let page = 0; page < 10; page++) {
          const list = await store.list(pods, {
            labelSelector: "even=true",
            limit: 2,
            ...(token ? { continue: token } : {}),
          });
          assert.ok(list.items.length <= 2);
          seen.push(...list.items.map(nameOf));
          token = list.continue;
          if (!token) break;
        }
        assert.deepEqual(seen, ["p0", "p2", "p4", "p6", "p8"]);
      });

      scenario("refuses a malformed continue token and one combined with a resourceVersion", async ({ store }) => {
        await rejectsWith(
          store.list(configMaps, { continue: "not-a-token" }),
          "BadRequest",
          "continue key is not valid",
        );
        await store.create(configMaps, configMap("a"));
        await store.create(configMaps, configMap("b"));
        const first = await store.list(configMaps, { limit: 1 });
        await rejectsWith(
          store.list(configMaps, { continue: first.continue as string, resourceVersion: "1" }),
          "BadRequest",
          "specifying resource version is not allowed when using continue",
        );
      });

      scenario("lists as of an old revision", async ({ store }) => {
        const a = await store.create(configMaps, configMap("a", { v: "1" }));
        const a2 = await store.update(configMaps, { ...a, data: { v: "2" } });
        await store.create(configMaps, configMap("b"));
        await store.update(configMaps, { ...a2, data: { v: "3" } });
        await store.delete(configMaps, "default", "a");
        const then = await store.list(configMaps, { resourceVersion: String(rv(a2)) });
        assert.equal(then.resourceVersion, String(rv(a2)));
        assert.deepEqual(then.items, [a2]);
        const now = await store.list(configMaps);
        assert.deepEqual(now.items.map(nameOf), ["b"]);
        await rejectsWith(
          store.list(configMaps, { resourceVersion: String(store.revision() + 10) }),
          "Timeout",
          "Too large resource version",
        );
      });

      scenario("a revision older than the compaction point is Gone", async ({ store, backend }) => {
        const a = await store.create(configMaps, configMap("a"));
        for (let i = 0; i < 3; i++) await store.create(configMaps, configMap(`b${i}`));
        const page = await store.list(configMaps, { limit: 2 });
        await store.create(configMaps, configMap("c"));
        await backend.compact(store.revision());
        await rejectsWith(
          store.list(configMaps, { resourceVersion: String(rv(a)) }),
          "Gone",
          `too old resource version: ${rv(a)}`,
        );
        await rejectsWith(store.watch(configMaps, { resourceVersion: String(rv(a)) }, new Recorder().push), "Gone");
        await rejectsWith(
          store.list(configMaps, { limit: 2, continue: page.continue as string }),
          "Gone",
          "continue parameter is too old",
        );
        assert.equal((await store.list(configMaps)).items.length, 5, "current data survives compaction");
      });
    });

    describe("watch", () => {
      scenario("from now: ADDED for current objects, then every change, in order", async (fixture) => {
        const { store } = fixture;
        await store.create(configMaps, configMap("old"));
        const recorder = new Recorder();
        const watch = await store.watch(configMaps, {}, recorder.push);
        const created = await store.create(configMaps, configMap("new"));
        await store.update(configMaps, { ...created, data: { k: "v" } });
        await store.delete(configMaps, "default", "old");
        await settle(fixture);
        assert.deepEqual(recorder.summary(), ["ADDED old", "ADDED new", "MODIFIED new", "DELETED old"]);
        const versions = recorder.events.map(rvOfEvent);
        assert.deepEqual(
          versions,
          [...versions].sort((x, y) => x - y),
          "events arrive in revision order",
        );
        watch.stop();
      });

      scenario("delivers nothing inside the write call", async (fixture) => {
        const recorder = new Recorder();
        await fixture.store.watch(configMaps, { resourceVersion: String(fixture.store.revision()) }, recorder.push);
        const writing = fixture.store.create(configMaps, configMap("a"));
        assert.equal(recorder.events.length, 0);
        await writing;
        await settle(fixture);
        assert.deepEqual(recorder.summary(), ["ADDED a"]);
      });

      scenario("from a revision: only the changes after it", async (fixture) => {
        const { store } = fixture;
        const a = await store.create(configMaps, configMap("a"));
        const mark = store.revision();
        await store.create(configMaps, configMap("b"));
        await store.update(configMaps, { ...a, data: { k: "v" } });
        const recorder = new Recorder();
        await store.watch(configMaps, { resourceVersion: String(mark) }, recorder.push);
        await store.delete(configMaps, "default", "b");
        await settle(fixture);
        assert.deepEqual(recorder.summary(), ["ADDED b", "MODIFIED a", "DELETED b"]);
      });

      scenario("objects leaving a selector are DELETED, entering ones ADDED", async (fixture) => {
        const { store } = fixture;
        const recorder = new Recorder();
        await store.watch(pods, { fieldSelector: "spec.nodeName=node-1" }, recorder.push);
        const labelRecorder = new Recorder();
        await store.watch(pods, { labelSelector: "app=web" }, labelRecorder.push);
        const p = await store.create(pods, pod("p", { labels: { app: "web" } }));
        const scheduled = await store.update(pods, { ...p, spec: { ...(p.spec as object), nodeName: "node-1" } });
        const relabeled = await store.update(pods, {
          ...scheduled,
          metadata: { ...scheduled.metadata, labels: { app: "db" } },
        });
        await store.delete(pods, "default", "p", { gracePeriodSeconds: 0 });
        await settle(fixture);
        assert.deepEqual(recorder.summary(), ["ADDED p", "MODIFIED p", "MODIFIED p", "DELETED p"]);
        assert.deepEqual(labelRecorder.summary(), ["ADDED p", "MODIFIED p", "DELETED p"]);
        const left = labelRecorder.events[2] as WatchEvent;
        assert.deepEqual(
          left.object.metadata?.labels,
          { app: "web" },
          "the DELETED object is the last matching content",
        );
        assert.equal(left.object.metadata?.resourceVersion, relabeled.metadata?.resourceVersion);
      });

      scenario("watches one namespace only", async (fixture) => {
        const recorder = new Recorder();
        await fixture.store.watch(pods, { namespace: "x" }, recorder.push);
        await fixture.store.create(pods, pod("in", { namespace: "x" }));
        await fixture.store.create(pods, pod("out", { namespace: "xy" }));
        await settle(fixture);
        assert.deepEqual(recorder.summary(), ["ADDED in"]);
      });

      scenario("no event is delivered after stop returns", async (fixture) => {
        const recorder = new Recorder();
        const watch = await fixture.store.watch(configMaps, {}, recorder.push);
        const writing = fixture.store.create(configMaps, configMap("a"));
        watch.stop();
        await writing;
        await settle(fixture);
        assert.deepEqual(recorder.events, []);
      });

      scenario("sends a BOOKMARK every minute when asked, at the revision reached", async (fixture) => {
        const { store, clock } = fixture;
        const recorder = new Recorder();
        const plain = new Recorder();
        await store.watch(configMaps, { allowBookmarks: true }, recorder.push);
        await store.watch(configMaps, {}, plain.push);
        await store.create(configMaps, configMap("a"));
        await store.create(pods, pod("elsewhere"));
        await clock.advanceBy(watchBookmarkIntervalMs);
        assert.deepEqual(recorder.summary(), ["ADDED a", "BOOKMARK"]);
        const bookmark = recorder.events[1] as WatchEvent;
        assert.equal(bookmark.object.kind, "ConfigMap");
        assert.equal(bookmark.object.metadata?.resourceVersion, String(store.revision()), "quiet prefixes move on too");
        await clock.advanceBy(watchBookmarkIntervalMs);
        assert.equal(recorder.summary().filter((s) => s === "BOOKMARK").length, 2);
        assert.deepEqual(plain.summary(), ["ADDED a"]);
      });
    });

    // A store that keeps nothing across restarts has no persistence to check: not a skipped test.
    const describePersistence = options.persistent ? describe : () => undefined;
    describePersistence("persistence", () => {
      scenario("after a restart every object and the revision counter are there", async (fixture) => {
        assert.ok(fixture.reopen, "a persistent store's fixture provides reopen");
        const a = await fixture.store.create(configMaps, configMap("a", { v: "1" }));
        await fixture.store.update(configMaps, { ...a, data: { v: "2" } });
        await fixture.store.create(pods, pod("p", { nodeName: "n" }));
        await fixture.store.delete(pods, "default", "p");
        const before = await fixture.store.list(configMaps);
        const podsBefore = await fixture.store.list(pods);
        const revision = fixture.store.revision();
        const { store } = await fixture.reopen();
        assert.equal(store.revision(), revision);
        assert.deepEqual(await store.list(configMaps), before);
        assert.deepEqual(await store.list(pods), podsBefore);
        const b = await store.create(configMaps, configMap("b"));
        assert.equal(rv(b), revision + 1, "new writes continue above the old revision");
        const history = await store.list(configMaps, { resourceVersion: String(rv(a)) });
        assert.deepEqual(
          history.items.map((item) => item.data),
          [{ v: "1" }],
          "history survives too",
        );
      });
    });
  });
}

function rvOfEvent(event: WatchEvent): number {
  return rv(event.object);
}
