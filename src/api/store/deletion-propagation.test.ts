import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KObject } from "../objects.ts";
import { resourceForKind } from "../resources.ts";
import { finalizersForPolicy } from "./deletion-propagation.ts";
import { planDeletion } from "./graceful-deletion.ts";

const replicaSets = resourceForKind("ReplicaSet");
const configMaps = resourceForKind("ConfigMap");

function owner(finalizers?: string[]): KObject {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name: "rs", uid: "u1", ...(finalizers === undefined ? {} : { finalizers }) },
  };
}

describe("deletion propagation finalizers", () => {
  it("adds the collector's finalizer for Foreground and Orphan, keeping the object's own", () => {
    assert.ok(replicaSets);
    assert.deepEqual(finalizersForPolicy(replicaSets, owner(["example.com/x"]), "Foreground"), [
      "example.com/x",
      "foregroundDeletion",
    ]);
    assert.deepEqual(finalizersForPolicy(replicaSets, owner(), "Orphan"), ["orphan"]);
  });

  it("Background clears them; no policy keeps what is there", () => {
    assert.ok(replicaSets);
    assert.deepEqual(finalizersForPolicy(replicaSets, owner(["orphan"]), "Background"), []);
    assert.equal(finalizersForPolicy(replicaSets, owner(["orphan"]), undefined), undefined);
    assert.equal(finalizersForPolicy(replicaSets, owner(), "Background"), undefined);
  });

  it("leaves kinds the collector does not watch alone, so they cannot wait forever", () => {
    assert.ok(configMaps);
    const config: KObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } };
    assert.equal(finalizersForPolicy(configMaps, config, "Foreground"), undefined);
    assert.deepEqual(planDeletion(configMaps, config, { propagationPolicy: "Foreground" }, 0), { action: "remove" });
  });

  it("a Foreground delete marks the owner instead of removing it", () => {
    assert.ok(replicaSets);
    const plan = planDeletion(replicaSets, owner(), { propagationPolicy: "Foreground" }, 1_000);
    assert.equal(plan.action, "mark");
    if (plan.action !== "mark") return;
    assert.deepEqual(plan.object.metadata?.finalizers, ["foregroundDeletion"]);
    assert.equal(plan.object.metadata?.deletionTimestamp, "1970-01-01T00:00:01Z");
    assert.equal(plan.thenRemove, false);
  });
});
