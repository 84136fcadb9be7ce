import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Indexer } from "../../api/informer/indexer.ts";
import { Lister } from "../../api/informer/lister.ts";
import type { StorageClass } from "../../api/objects.ts";
import { defaultStorageClass, isDelayBindingMode } from "./storage-classes.ts";
import { persistentVolumeClaim, storageClass } from "./testing/pv-cluster.ts";

function listerOf(...classes: StorageClass[]): Lister<StorageClass> {
  const indexer = new Indexer<StorageClass>();
  for (const item of classes) indexer.upsert(item);
  return new Lister(indexer);
}

function createdAt(item: StorageClass, timestamp: string): StorageClass {
  return { ...item, metadata: { ...item.metadata, creationTimestamp: timestamp } };
}

describe("StorageClasses as the PV controller reads them", () => {
  it("delays binding only for a WaitForFirstConsumer class that exists", () => {
    const classes = listerOf(
      storageClass("wait", { bindingMode: "WaitForFirstConsumer" }),
      storageClass("now", { bindingMode: "Immediate" }),
    );
    const claimOf = (className: string | null) => persistentVolumeClaim("default", "data", { className });
    assert.equal(isDelayBindingMode(claimOf("wait"), classes), true);
    assert.equal(isDelayBindingMode(claimOf("now"), classes), false);
    assert.equal(isDelayBindingMode(claimOf("missing"), classes), false);
    assert.equal(isDelayBindingMode(claimOf(""), classes), false);
  });

  it("refuses a class whose binding mode is not set", () => {
    const classes = listerOf(storageClass("odd", { bindingMode: null }));
    const claim = persistentVolumeClaim("default", "data", { className: "odd" });
    assert.throws(
      () => isDelayBindingMode(claim, classes),
      /^Error: VolumeBindingMode not set for StorageClass "odd"$/,
    );
  });

  it("takes the newest default class, and the first by name among equals", () => {
    const classes = listerOf(
      createdAt(storageClass("old", { isDefault: true }), "2026-01-01T00:00:00Z"),
      createdAt(storageClass("zeta", { isDefault: true }), "2026-01-02T00:00:00Z"),
      createdAt(storageClass("alpha", { isDefault: true }), "2026-01-02T00:00:00Z"),
      createdAt(storageClass("newest-but-not-default"), "2026-01-03T00:00:00Z"),
    );
    assert.equal(defaultStorageClass(classes)?.metadata?.name, "alpha");
    assert.equal(defaultStorageClass(listerOf(storageClass("plain"))), undefined);
  });
});
