import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changed, problemsOf } from "./testing/test-support.ts";

type Manifest = { metadata: Record<string, unknown>; spec: Record<string, unknown>; status?: Record<string, unknown> };

const snapshot: Manifest = {
  metadata: { name: "data-snap", namespace: "default" },
  spec: { source: { persistentVolumeClaimName: "data" }, volumeSnapshotClassName: "csi-hostpath-snapclass" },
};

const content: Manifest = {
  metadata: { name: "snapcontent-6f1c" },
  spec: {
    deletionPolicy: "Delete",
    driver: "hostpath.csi.kvol.io",
    source: { volumeHandle: "vol-1" },
    volumeSnapshotRef: { name: "data-snap", namespace: "default" },
  },
};

describe("VolumeSnapshot", () => {
  it("accepts a snapshot of a claim and one of a pre-provisioned content", () => {
    assert.deepEqual(problemsOf("VolumeSnapshot", snapshot), []);
    const preProvisioned = changed(snapshot, (copy) => {
      copy.spec = { source: { volumeSnapshotContentName: "snapcontent-6f1c" } };
    });
    assert.deepEqual(problemsOf("VolumeSnapshot", preProvisioned), []);
  });

  it("requires exactly one source, as the CRD's rule says", () => {
    const both = changed(snapshot, (copy) => {
      copy.spec.source = { persistentVolumeClaimName: "data", volumeSnapshotContentName: "c" };
    });
    assert.deepEqual(problemsOf("VolumeSnapshot", both), [
      'spec.source: Invalid value: "object": exactly one of volumeSnapshotContentName and persistentVolumeClaimName must be set',
    ]);
    const none = changed(snapshot, (copy) => {
      copy.spec = {};
    });
    assert.deepEqual(problemsOf("VolumeSnapshot", none), ["spec.source: Required value"]);
  });

  it("refuses an empty class name and a changed source", () => {
    const emptyClass = changed(snapshot, (copy) => {
      copy.spec.volumeSnapshotClassName = "";
    });
    assert.deepEqual(problemsOf("VolumeSnapshot", emptyClass), [
      'spec: Invalid value: "object": volumeSnapshotClassName must not be the empty string when set',
    ]);
    const moved = changed(snapshot, (copy) => {
      copy.spec.source = { persistentVolumeClaimName: "other" };
    });
    assert.deepEqual(problemsOf("VolumeSnapshot", moved, snapshot), [
      'spec.source.persistentVolumeClaimName: Invalid value: "string": persistentVolumeClaimName is immutable',
    ]);
  });
});

describe("VolumeSnapshotContent", () => {
  it("accepts a dynamic content and requires its policy, driver, source and reference", () => {
    assert.deepEqual(problemsOf("VolumeSnapshotContent", content), []);
    assert.deepEqual(problemsOf("VolumeSnapshotContent", { metadata: { name: "c" }, spec: {} }), [
      "spec.deletionPolicy: Required value",
      "spec.driver: Required value",
      "spec.source: Required value",
      "spec.volumeSnapshotRef: Required value",
    ]);
  });

  it("names the supported deletion policies and the reference's missing namespace", () => {
    const bad = changed(content, (copy) => {
      copy.spec.deletionPolicy = "Keep";
      copy.spec.volumeSnapshotRef = { name: "data-snap" };
    });
    assert.deepEqual(problemsOf("VolumeSnapshotContent", bad), [
      'spec.deletionPolicy: Unsupported value: "Keep": supported values: "Delete", "Retain"',
      'spec.volumeSnapshotRef: Invalid value: "object": both spec.volumeSnapshotRef.name and spec.volumeSnapshotRef.namespace must be set',
    ]);
  });

  it("keeps the snapshot handle once set and refuses a negative restore size", () => {
    const handled = changed(content, (copy) => {
      copy.spec.source = { snapshotHandle: "snap-1" };
    });
    const changedHandle = changed(handled, (copy) => {
      copy.spec.source = { snapshotHandle: "snap-2" };
      copy.status = { restoreSize: -1 };
    });
    assert.deepEqual(problemsOf("VolumeSnapshotContent", changedHandle, handled), [
      "status.restoreSize: Invalid value: -1: status.restoreSize in body should be greater than or equal to 0",
      'spec.source.snapshotHandle: Invalid value: "string": snapshotHandle is immutable',
    ]);
  });
});

describe("VolumeSnapshotClass", () => {
  it("requires a driver and a supported deletion policy", () => {
    assert.deepEqual(problemsOf("VolumeSnapshotClass", { metadata: { name: "c" }, deletionPolicy: "Remove" }), [
      "driver: Required value",
      'deletionPolicy: Unsupported value: "Remove": supported values: "Delete", "Retain"',
    ]);
  });
});
