import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { type FieldCause, isApiError } from "../errors.ts";
import type { KObject } from "../objects.ts";
import { resourceForKind } from "../resources.ts";
import { KubeStore, type Validator } from "./kube-store.ts";
import { MemoryBackend } from "./memory-backend.ts";

const configMaps = resourceForKind("ConfigMap");
assert.ok(configMaps);

/** Refuses any ConfigMap whose data has a key "bad", as a kind's validation would. */
const refuseBadKey: Validator = (_type, object) => {
  const data = (object.data ?? {}) as Record<string, string>;
  const causes: FieldCause[] = [];
  if ("bad" in data)
    causes.push({ field: "data[bad]", reason: "FieldValueInvalid", message: "Invalid value: forbidden key" });
  return causes;
};

function storeWith(validate: Validator): KubeStore {
  return new KubeStore({ backend: new MemoryBackend(), clock: new VirtualClock(), random: new Rng(3), validate });
}

describe("KubeStore validation", () => {
  it("turns validation causes into Invalid on create, naming kind, object and field", async () => {
    const store = storeWith(refuseBadKey);
    const input: KObject = { metadata: { name: "cfg" }, data: { bad: "1" } };
    await assert.rejects(store.create(configMaps, input), (err: unknown) => {
      return (
        isApiError(err, "Invalid") &&
        err.message === 'ConfigMap "cfg" is invalid: data[bad]: Invalid value: forbidden key' &&
        err.details.causes?.[0]?.field === "data[bad]"
      );
    });
    assert.equal(store.revision(), 0, "nothing was stored");
  });

  it("validates updates too, unless told to skip validation", async () => {
    const store = storeWith(refuseBadKey);
    const created = await store.create(configMaps, { metadata: { name: "cfg" }, data: { good: "1" } });
    await assert.rejects(store.update(configMaps, { ...created, data: { bad: "1" } }), (err: unknown) =>
      isApiError(err, "Invalid"),
    );
    assert.deepEqual((await store.get(configMaps, "default", "cfg")).data, { good: "1" });
    const skipped = await store.update(configMaps, { ...created, data: { bad: "1" } }, { skipValidation: true });
    assert.deepEqual(skipped.data, { bad: "1" });
  });

  it("passes the stored object to update validation, for immutability rules", async () => {
    const seen: (string | undefined)[] = [];
    const store = storeWith((_type, _object, old) => {
      seen.push(old?.metadata?.resourceVersion);
      return [];
    });
    const input: KObject = { metadata: { name: "cfg" } };
    const created = await store.create(configMaps, input);
    await store.update(configMaps, { ...created, data: { a: "1" } });
    assert.deepEqual(seen, [undefined, created.metadata?.resourceVersion]);
  });
});

describe("KubeStore resource versions", () => {
  it("refuses a resourceVersion that is not a whole number, naming it, and accepts digits", async () => {
    const store = storeWith(() => []);
    const created: KObject = await store.create(configMaps, { metadata: { name: "cfg" } } as KObject);
    for (const bad of ["12a", "-1", "1.5", " 1", "１"]) {
      await assert.rejects(
        store.update(configMaps, { ...created, metadata: { ...created.metadata, resourceVersion: bad } }),
        (err: unknown) =>
          isApiError(err, "BadRequest") &&
          err.message === `invalid resource version "${bad}": a resource version is a non-negative integer`,
      );
    }
    // JSON from a client may put any value there: each is a 400 naming it, never a crash or a match.
    for (const [bad, shown] of [
      [true, "true"],
      [["1"], '["1"]'],
      [{}, "{}"],
      [1, "1"],
    ] as const) {
      await assert.rejects(
        store.update(configMaps, {
          ...created,
          metadata: { ...created.metadata, resourceVersion: bad as unknown as string },
        }),
        (err: unknown) =>
          isApiError(err, "BadRequest") &&
          err.message === `invalid resource version "${shown}": a resource version is a non-negative integer`,
      );
    }
    await assert.rejects(store.list(configMaps, { resourceVersion: "x" }), (err: unknown) =>
      isApiError(err, "BadRequest"),
    );
    const updated = await store.update(configMaps, { ...created, data: { a: "1" } });
    assert.equal(updated.metadata?.resourceVersion, "2");
    assert.equal((await store.list(configMaps, { resourceVersion: "02" })).items.length, 1);
  });
});

describe("KubeStore names", () => {
  it("refuses a name or namespace that cannot be a key segment, naming each field", async () => {
    const store = storeWith(() => []);
    await assert.rejects(
      store.create(configMaps, { metadata: { name: "a/b", namespace: ".." } }),
      (err: unknown) =>
        isApiError(err, "Invalid") &&
        JSON.stringify(err.details.causes?.map((cause) => [cause.field, cause.message])) ===
          JSON.stringify([
            ["metadata.name", `Invalid value: "a/b": may not contain '/'`],
            ["metadata.namespace", `Invalid value: "..": may not be '..'`],
          ]),
    );
    assert.equal(store.revision(), 0, "nothing was stored");
  });
});
