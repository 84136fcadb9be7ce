import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import { accessModesString } from "../../api/storage/access-modes.ts";
import { persistentVolume, persistentVolumeClaim, type VolumeOptions } from "./testing/pv-cluster.ts";
import { VolumeIndex } from "./volume-index.ts";

let nextVersion = 1;

function available(name: string, options: VolumeOptions = {}, extra: Partial<PersistentVolume["metadata"]> = {}) {
  const volume = persistentVolume(name, options);
  return {
    ...volume,
    metadata: { ...volume.metadata, uid: `uid-${name}`, resourceVersion: String(nextVersion++), ...extra },
    status: { phase: "Available" },
  };
}

function claim(options: Parameters<typeof persistentVolumeClaim>[2] = {}): PersistentVolumeClaim {
  const made = persistentVolumeClaim("default", "data", options);
  return { ...made, metadata: { ...made.metadata, uid: "claim-uid" } };
}

function indexOf(...volumes: PersistentVolume[]): VolumeIndex {
  const index = new VolumeIndex();
  for (const volume of volumes) index.storeIfNotOlder(volume);
  return index;
}

describe("the volume index", () => {
  it("files volumes by their exact access-mode set", () => {
    assert.equal(accessModesString(["ReadWriteMany", "ReadWriteOnce", "ReadWriteOnce"]), "RWO,RWX");
    const index = indexOf(
      available("a", { accessModes: ["ReadWriteOnce"] }),
      available("b", { accessModes: ["ReadOnlyMany", "ReadWriteOnce"] }),
    );
    assert.deepEqual(index.accessModeKeys().sort(), ["RWO", "RWO,ROX"]);
    index.storeIfNotOlder(available("a", { accessModes: ["ReadWriteMany"] }));
    assert.deepEqual(index.accessModeKeys().sort(), ["RWO,ROX", "RWX"], "a changed volume moves");
  });

  it("searches the sets with the fewest extra modes first, then the smallest volume", () => {
    const index = indexOf(
      available("rwo-rox-small", { capacity: "1Gi", accessModes: ["ReadWriteOnce", "ReadOnlyMany"] }),
      available("rwo-big", { capacity: "10Gi", accessModes: ["ReadWriteOnce"] }),
      available("rwo-medium", { capacity: "5Gi", accessModes: ["ReadWriteOnce"] }),
    );
    assert.equal(index.findByClaim(claim(), false)?.metadata?.name, "rwo-medium");
    assert.equal(index.findByClaim(claim({ accessModes: ["ReadOnlyMany"] }), false)?.metadata?.name, "rwo-rox-small");
    assert.equal(index.findByClaim(claim({ accessModes: ["ReadWriteMany"] }), false), undefined);
  });

  it("skips volumes of another class, selector, volumeMode, phase, or being deleted", () => {
    const claimForFast = claim({ className: "fast", selector: { matchLabels: { tier: "gold" } } });
    const gold = { labels: { tier: "gold" }, className: "fast" };
    const index = indexOf(
      available("other-class", { ...gold, className: "slow" }),
      available("no-label", { className: "fast" }),
      available("block", { ...gold, volumeMode: "Block" }),
      available("deleting", gold, { deletionTimestamp: "2026-01-01T00:00:00Z" }),
      { ...available("pending", gold), status: { phase: "Pending" } },
      available("too-small", { ...gold, capacity: "500Mi" }),
    );
    assert.equal(index.findByClaim(claimForFast, false), undefined);
    index.storeIfNotOlder(available("fits", { ...gold, capacity: "3Gi" }));
    assert.equal(index.findByClaim(claimForFast, false)?.metadata?.name, "fits");
  });

  it("returns a volume pre-bound to the claim at once, and only that one when binding is delayed", () => {
    const prebound = available("prebound", { capacity: "50Gi", claimRef: { namespace: "default", name: "data" } });
    const small = available("small");
    const index = indexOf(small, prebound);
    assert.equal(index.findByClaim(claim(), false)?.metadata?.name, "prebound");
    index.delete("prebound");
    assert.equal(index.findByClaim(claim(), true), undefined, "the scheduler binds unbound volumes");
    assert.equal(index.findByClaim(claim(), false)?.metadata?.name, "small");
  });

  it("never offers a volume that names another claim, and offers it again once released", () => {
    const other = { namespace: "default", name: "other" };
    const index = indexOf(available("taken", { claimRef: other }));
    assert.equal(index.findByClaim(claim(), false), undefined);
    index.storeIfNotOlder(available("taken"));
    assert.equal(index.findByClaim(claim(), false)?.metadata?.name, "taken", "its claimRef was cleared");
    index.storeIfNotOlder(available("taken", { claimRef: other }));
    assert.equal(index.findByClaim(claim(), false), undefined, "claimed again");
  });

  it("takes the first of equal volumes in their order of arrival", () => {
    const index = indexOf(available("first"), available("second"));
    assert.equal(index.findByClaim(claim(), false)?.metadata?.name, "first");
    index.storeIfNotOlder(available("first", { labels: { touched: "yes" } }));
    assert.equal(index.findByClaim(claim(), false)?.metadata?.name, "second", "a changed volume arrives again");
  });

  it("takes the first of volumes pre-bound to the claim in their order of arrival, a changed one last", () => {
    const claimRef = { namespace: "default", name: "data" };
    const index = indexOf(available("first", { claimRef }), available("second", { claimRef }));
    assert.equal(index.findByClaim(claim(), false)?.metadata?.name, "first");
    index.storeIfNotOlder(available("first", { claimRef, labels: { touched: "yes" } }));
    assert.equal(index.findByClaim(claim(), false)?.metadata?.name, "second", "a changed volume arrives again");
    index.storeIfNotOlder(available("second", { claimRef, accessModes: ["ReadWriteOnce", "ReadOnlyMany"] }));
    assert.equal(index.findByClaim(claim(), false)?.metadata?.name, "first", "the fewest extra modes first");
  });

  it("explains an invalid claim selector", () => {
    const index = indexOf(available("a"));
    const bad = claim({ selector: { matchLabels: { "bad key!": "x" } } });
    assert.throws(
      () => index.findByClaim(bad, false),
      /error creating internal label selector for claim: default\/data/,
    );
  });
});
