import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { testPod } from "../../api/client/testing/test-api.ts";
import { Indexer } from "../../api/informer/indexer.ts";
import { indexers, podsByClaim } from "../../api/informer/indexes.ts";
import type { PersistentVolume, PersistentVolumeClaim, Pod } from "../../api/objects.ts";
import { podsHelpedByClaim, podsHelpedByVolume } from "./volume-event-hints.ts";

function podsIndex(): Indexer<Pod> {
  const pods = new Indexer<Pod>(indexers(podsByClaim));
  pods.upsert(testPod("shop", "web-0", undefined, ["data-0"]));
  pods.upsert(testPod("shop", "web-1", undefined, ["data-1"]));
  pods.upsert(testPod("other", "web-0", undefined, ["data-0"]));
  return pods;
}

const claim = (namespace: string, name: string): PersistentVolumeClaim => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { namespace, name },
});

function volume(claimRef?: { namespace: string; name: string }): PersistentVolume {
  return { apiVersion: "v1", kind: "PersistentVolume", metadata: { name: "pv-1" }, spec: { claimRef } };
}

describe("volume event hints", () => {
  it("wakes only the pods that use a changed claim", () => {
    assert.deepEqual(podsHelpedByClaim(podsIndex(), claim("shop", "data-0")), ["shop/web-0"]);
    assert.deepEqual(podsHelpedByClaim(podsIndex(), claim("shop", "unused")), []);
  });

  it("wakes the pods of the claim a volume names, before and after an update", () => {
    const pods = podsIndex();
    const bound = volume({ namespace: "shop", name: "data-1" });
    assert.deepEqual(podsHelpedByVolume(pods, bound, undefined), ["shop/web-1"]);
    const rebound = volume({ namespace: "shop", name: "data-0" });
    assert.deepEqual(podsHelpedByVolume(pods, rebound, bound), ["shop/web-1", "shop/web-0"]);
  });

  it("wakes every pod for a volume that names no claim, which any unbound claim may take", () => {
    const pods = podsIndex();
    assert.equal(podsHelpedByVolume(pods, volume(), undefined), "all");
    assert.equal(podsHelpedByVolume(pods, volume({ namespace: "shop", name: "data-0" }), volume()), "all");
  });
});
