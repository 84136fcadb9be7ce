import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolumeClaim } from "../../api/objects.ts";
import { VersionedCache } from "./versioned-cache.ts";

function claimAt(resourceVersion: string, uid = "uid-1", phase = "Pending"): PersistentVolumeClaim {
  return { metadata: { namespace: "default", name: "data", uid, resourceVersion }, status: { phase } };
}

describe("VersionedCache", () => {
  it("ignores a version older than the one it holds, and takes the same or a newer one", () => {
    const cache = new VersionedCache<PersistentVolumeClaim>();
    assert.equal(cache.storeIfNotOlder(claimAt("7", "uid-1", "Bound")), true);
    assert.equal(cache.storeIfNotOlder(claimAt("5")), false);
    assert.equal(cache.get("default/data")?.status?.phase, "Bound");
    assert.equal(cache.storeIfNotOlder(claimAt("7", "uid-1", "Bound")), true, "a resync delivers the same version");
    assert.equal(cache.storeIfNotOlder(claimAt("12", "uid-1", "Lost")), true);
    assert.equal(cache.get("default/data")?.status?.phase, "Lost");
  });

  it("offers its newer copy of the same object only", () => {
    const cache = new VersionedCache<PersistentVolumeClaim>();
    cache.storeIfNotOlder(claimAt("9", "uid-1", "Bound"));
    assert.equal(cache.newest(claimAt("4")).status?.phase, "Bound");
    assert.equal(cache.newest(claimAt("4", "uid-2")).metadata?.uid, "uid-2", "another claim of the same name");
    assert.equal(cache.newest(claimAt("11")).metadata?.resourceVersion, "11");
  });

  it("names the object when a resourceVersion is not a number", () => {
    const cache = new VersionedCache<PersistentVolumeClaim>();
    cache.storeIfNotOlder(claimAt("3"));
    assert.throws(
      () => cache.storeIfNotOlder(claimAt("")),
      /default\/data: metadata.resourceVersion "" is not an integer/,
    );
  });
});
