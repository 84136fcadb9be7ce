/**
 * Property-based fuzzing of the API server over HTTP: for every kind it serves, bad manifests,
 * patches of every type, bad DeleteOptions, malformed bodies and bad query parameters. Each answer
 * is a 4xx v1 Status with a message (with field paths when 422), or a 2xx whose object reads back
 * the same; never a 5xx; and a refused request leaves the store exactly as it was.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import type { ResourceType } from "../api/resources.ts";
import { startTestServer, type TestServer } from "./test-server.ts";
import { fuzzRuns, fuzzSeed, hostileValue, mutatedObject, pathsOf } from "./testing/fuzz-values.ts";
import { collectionPath, SERVED_KINDS, validObject } from "./testing/valid-objects.ts";

interface FuzzRequest {
  method: string;
  path: string;
  body?: unknown;
  contentType?: string;
}

/** A server holding the `seed` object of one kind; restarted fresh after any accepted write. */
class Harness {
  private t: TestServer | undefined;
  private dirty = true;

  constructor(private readonly type: ResourceType) {}

  async server(): Promise<TestServer> {
    if (this.t !== undefined && !this.dirty) return this.t;
    await this.t?.close();
    this.t = await startTestServer();
    const created = await this.t.call("POST", collectionPath(this.type), validObject(this.type));
    assert.equal(created.status, 201, `the valid ${this.type.kind} is created: ${JSON.stringify(created.body)}`);
    this.dirty = false;
    return this.t;
  }

  /** Sends the request and checks everything a client may rely on. */
  async send(request: FuzzRequest): Promise<void> {
    const t = await this.server();
    const before = await snapshot(t);
    const answer = await t.call(request.method, request.path, request.body, request.contentType);
    const shown = `${request.method} ${request.path} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 600)}`;
    assert.ok(answer.status < 500, `never a server error: ${shown}`);
    if (answer.status >= 400) {
      assertStatus(answer.status, answer.body, shown);
      assert.deepEqual(await snapshot(t), before, `a refused request changes nothing: ${shown}`);
    } else {
      this.dirty = true;
      if (request.method !== "GET" && request.method !== "DELETE" && !request.path.includes("dryRun=All")) {
        await assertReadsBack(t, answer.body, shown);
      }
    }
    const alive = await t.call("GET", collectionPath(this.type));
    assert.equal(alive.status, 200, `the server still answers after: ${shown}`);
  }

  async close(): Promise<void> {
    await this.t?.close();
  }
}

function assertStatus(status: number, body: Record<string, unknown>, shown: string): void {
  assert.equal(body.kind, "Status", `the answer is a Status: ${shown}`);
  assert.equal(body.apiVersion, "v1", shown);
  assert.equal(body.code, status, shown);
  assert.ok(typeof body.message === "string" && body.message.length > 0, `the Status has a message: ${shown}`);
  const details = body.details as { name?: unknown } | undefined;
  if (details?.name !== undefined) assert.equal(typeof details.name, "string", `details.name is a string: ${shown}`);
  if (status === 422) {
    const causes = (body.details as { causes?: { field?: unknown }[] } | undefined)?.causes ?? [];
    assert.ok(causes.length > 0, `a 422 lists its causes: ${shown}`);
    for (const cause of causes) {
      assert.ok(typeof cause.field === "string" && cause.field.length > 0, `each cause names a field: ${shown}`);
    }
  }
}

/** An accepted write is what a later read returns. */
async function assertReadsBack(t: TestServer, written: Record<string, unknown>, shown: string): Promise<void> {
  const metadata = written.metadata as { name?: string; namespace?: string } | undefined;
  const kind = String(written.kind);
  const type = SERVED_KINDS.find((candidate) => candidate.kind === kind);
  assert.ok(type !== undefined && metadata?.name !== undefined, `a 2xx write answers the object: ${shown}`);
  const collection = type.namespaced
    ? collectionPath(type).replace("/namespaces/default/", `/namespaces/${metadata.namespace}/`)
    : collectionPath(type);
  const read = await t.call("GET", `${collection}/${metadata.name}`);
  if (read.status === 404) return; // deleted at once, e.g. an object without finalizers and a deletionTimestamp
  assert.equal(read.status, 200, shown);
  assert.deepEqual(read.body, written, `the accepted object reads back as written: ${shown}`);
}

/** Every stored object of every kind, and the revision. */
async function snapshot(t: TestServer): Promise<unknown> {
  const lists = await Promise.all(SERVED_KINDS.map((type) => t.store.list(type)));
  return { revision: t.store.revision(), items: lists.map((list) => list.items) };
}

const runs = fuzzRuns(4);
const options = { seed: fuzzSeed, numRuns: runs, endOnFailure: true };

const queryValue = fc.oneof(
  fc.constantFrom("", "-1", "0", "abc", "1e999", "%zz", "99999999999999999999", "true", "Strict", "All", "=="),
  fc.string({ maxLength: 16 }),
);

function query(entries: Record<string, string>): string {
  return new URLSearchParams(entries).toString();
}

function itemPath(type: ResourceType): string {
  return `${collectionPath(type)}/seed`;
}

const patchTypes = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

describe("API fuzzing: every kind, every verb", { concurrency: 1 }, () => {
  for (const type of SERVED_KINDS) {
    describe(type.kind, () => {
      const harness = new Harness(type);
      before(() => harness.server().then(() => undefined));
      after(() => harness.close());
      const valid = validObject(type);

      it("create: a mutated manifest, with or without strict field validation", async () => {
        const validation = fc.constantFrom("", "?fieldValidation=Strict", "?fieldValidation=Warn", "?dryRun=All");
        await fc.assert(
          fc.asyncProperty(
            mutatedObject({ ...valid, metadata: { ...(valid.metadata as object), name: "fresh" } }),
            validation,
            (body, q) => harness.send({ method: "POST", path: `${collectionPath(type)}${q}`, body }),
          ),
          options,
        );
      });

      it("update: a mutated object put over the stored one", async () => {
        await fc.assert(
          fc.asyncProperty(mutatedObject(valid), fc.constantFrom("", "?fieldValidation=Strict"), (body, q) =>
            harness.send({ method: "PUT", path: `${itemPath(type)}${q}`, body }),
          ),
          options,
        );
      });

      it("merge and strategic-merge patch: a mutated object or any JSON as the patch", async () => {
        const patch = fc.oneof(mutatedObject(valid), fc.jsonValue({ maxDepth: 4 }), hostileValue);
        await fc.assert(
          fc.asyncProperty(patch, fc.constantFrom(patchTypes.merge, patchTypes.strategic), (body, type_) =>
            harness.send({ method: "PATCH", path: itemPath(type), body: JSON.stringify(body), contentType: type_ }),
          ),
          options,
        );
      });

      it("json-patch: operations on real and made-up paths with hostile values", async () => {
        const pointer = fc.oneof(
          fc.constantFrom(...pathsOf(valid).map((path) => `/${path.join("/")}`)),
          fc.constantFrom("", "/", "/metadata/__proto__/x", "/spec/-", "/a~2b", "/metadata/labels/~1"),
          fc.string({ maxLength: 12 }),
        );
        const operation = fc.record(
          {
            op: fc.constantFrom("add", "remove", "replace", "move", "copy", "test", "bogus"),
            path: pointer,
            from: pointer,
            value: hostileValue,
          },
          { requiredKeys: ["op"] },
        );
        const body = fc.oneof(fc.array(operation, { maxLength: 4 }), hostileValue);
        await fc.assert(
          fc.asyncProperty(body, (patch) =>
            harness.send({
              method: "PATCH",
              path: itemPath(type),
              body: JSON.stringify(patch),
              contentType: patchTypes.json,
            }),
          ),
          options,
        );
      });

      it("apply: a mutated manifest applied by a field manager", async () => {
        const q = fc.constantFrom("?fieldManager=fuzz", "?fieldManager=fuzz&force=true", "", "?fieldManager=");
        await fc.assert(
          fc.asyncProperty(mutatedObject(valid), q, (body, params) =>
            harness.send({
              method: "PATCH",
              path: `${itemPath(type)}${params}`,
              body: JSON.stringify(body),
              contentType: patchTypes.apply,
            }),
          ),
          options,
        );
      });

      it("delete: bad DeleteOptions in the body and the query", async () => {
        const deleteOptions = fc.record(
          {
            apiVersion: fc.constantFrom("v1", "meta.k8s.io/v1", "bogus/v9"),
            kind: fc.constantFrom("DeleteOptions", "Pod", ""),
            gracePeriodSeconds: hostileValue,
            propagationPolicy: fc.oneof(
              fc.constantFrom("Orphan", "Background", "Foreground", "Sideways"),
              hostileValue,
            ),
            preconditions: fc.oneof(fc.record({ uid: hostileValue, resourceVersion: hostileValue }), hostileValue),
            dryRun: fc.oneof(fc.constant(["All"]), hostileValue),
            orphanDependents: hostileValue,
          },
          { requiredKeys: [] },
        );
        const params = fc.record(
          { gracePeriodSeconds: queryValue, propagationPolicy: queryValue, dryRun: queryValue },
          { requiredKeys: [] },
        );
        await fc.assert(
          fc.asyncProperty(fc.oneof(deleteOptions, hostileValue), params, (body, q) =>
            harness.send({ method: "DELETE", path: `${itemPath(type)}?${query(q)}`, body: JSON.stringify(body) }),
          ),
          options,
        );
      });

      it("malformed bodies on create, update and patch", async () => {
        const text = JSON.stringify(valid);
        const body = fc.oneof(
          fc.string({ unit: "binary", maxLength: 60 }),
          fc.integer({ min: 0, max: text.length - 1 }).map((cut) => text.slice(0, cut)),
          fc.constantFrom("null", "[]", "1", '"x"', "{", "{}", "\u0000", "apiVersion: [", "- a\n- b", "{}{}"),
        );
        const target = fc.constantFrom(
          { method: "POST", path: collectionPath(type), contentType: "application/json" },
          { method: "POST", path: collectionPath(type), contentType: "application/yaml" },
          { method: "PUT", path: itemPath(type), contentType: "application/json" },
          { method: "PATCH", path: itemPath(type), contentType: patchTypes.merge },
          { method: "PATCH", path: itemPath(type), contentType: patchTypes.json },
          { method: "PATCH", path: `${itemPath(type)}?fieldManager=fuzz`, contentType: patchTypes.apply },
          { method: "POST", path: collectionPath(type), contentType: "text/plain" },
        );
        await fc.assert(
          fc.asyncProperty(body, target, (text_, request) => harness.send({ ...request, body: text_ })),
          options,
        );
      });

      it("list and get: bad query parameters", async () => {
        const params = fc.record(
          {
            limit: queryValue,
            continue: queryValue,
            fieldSelector: fc.oneof(queryValue, fc.constantFrom("metadata.name=seed", "spec.nodeName!=x", "bogus=1")),
            labelSelector: fc.oneof(queryValue, fc.constantFrom("app in (", "a!=b,c", "x notin ()", "!!a")),
            resourceVersion: queryValue,
            resourceVersionMatch: queryValue,
            timeoutSeconds: queryValue,
          },
          { requiredKeys: [] },
        );
        const target = fc.constantFrom(
          collectionPath(type),
          itemPath(type),
          "/api/v1/pods",
          "/apis/apps/v1/deployments",
        );
        await fc.assert(
          fc.asyncProperty(params, target, (q, path) => harness.send({ method: "GET", path: `${path}?${query(q)}` })),
          options,
        );
      });
    });
  }
});
