/**
 * A key named `__proto__` is an ordinary key in Kubernetes: a valid ConfigMap or Secret data key
 * ([-._a-zA-Z0-9]+), an invalid label or annotation key. Through every write path it is kept and
 * served, or refused with the validation error, never silently dropped.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { startTestServer, type TestServer } from "./test-server.ts";

const configMaps = "/api/v1/namespaces/default/configmaps";

/** Bodies are written as text: a `__proto__` key in a TypeScript object literal would set the prototype. */
const configMapText = (name: string, data: string) =>
  `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","namespace":"default"},"data":${data}}`;

function dataOf(body: Record<string, unknown>): Record<string, unknown> {
  const data = body.data as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(data), Object.prototype);
  return data;
}

function protoKeyOf(body: Record<string, unknown>): unknown {
  return Object.getOwnPropertyDescriptor(dataOf(body), "__proto__")?.value;
}

describe("a __proto__ key", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  it("is kept as a ConfigMap data key on create, get and list", async () => {
    const created = await t.call("POST", configMaps, configMapText("a", '{"__proto__":"v","b":"c"}'));
    assert.equal(created.status, 201);
    assert.deepEqual(Object.entries(dataOf(created.body)), [
      ["__proto__", "v"],
      ["b", "c"],
    ]);
    const read = await t.call("GET", `${configMaps}/a`);
    assert.equal(protoKeyOf(read.body), "v");
    const listed = await t.call("GET", configMaps);
    assert.equal(protoKeyOf(listed.body.items?.[0] ?? {}), "v");
  });

  it("is kept through update, merge, strategic merge and JSON patches and server-side apply", async () => {
    await t.call("POST", configMaps, configMapText("a", '{"b":"c"}'));
    const merged = await t.call(
      "PATCH",
      `${configMaps}/a`,
      '{"data":{"__proto__":"merge"}}',
      "application/merge-patch+json",
    );
    assert.equal(merged.status, 200);
    assert.equal(protoKeyOf(merged.body), "merge");
    const strategic = await t.call(
      "PATCH",
      `${configMaps}/a`,
      '{"data":{"__proto__":"strategic"}}',
      "application/strategic-merge-patch+json",
    );
    assert.equal(protoKeyOf(strategic.body), "strategic");
    const json = await t.call(
      "PATCH",
      `${configMaps}/a`,
      '[{"op":"replace","path":"/data/__proto__","value":"json"}]',
      "application/json-patch+json",
    );
    assert.equal(protoKeyOf(json.body), "json");
    const applied = await t.call(
      "PATCH",
      `${configMaps}/a?fieldManager=test&force=true`,
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  __proto__: applied\n",
      "application/apply-patch+yaml",
    );
    assert.equal(applied.status, 200);
    assert.equal(protoKeyOf(applied.body), "applied");
    const updated = await t.call("PUT", `${configMaps}/a`, configMapText("a", '{"__proto__":"put"}'));
    assert.equal(updated.status, 200);
    assert.deepEqual(Object.entries(dataOf(updated.body)), [["__proto__", "put"]]);
  });

  it("is refused as a label key with Kubernetes' validation error", async () => {
    const answer = await t.call(
      "POST",
      configMaps,
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"__proto__":"x"}}}',
    );
    assert.equal(answer.status, 422);
    assert.match(
      String(answer.body.message),
      /^ConfigMap "a" is invalid: metadata\.labels: Invalid value: "__proto__": name part must consist of alphanumeric characters/,
    );
    assert.equal((await t.call("GET", `${configMaps}/a`)).status, 404);
  });
});
