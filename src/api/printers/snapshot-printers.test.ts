import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseRfc3339 } from "../../runtime/clock.ts";
import type { VolumeSnapshot, VolumeSnapshotContent } from "../objects.ts";
import { volumeSnapshotContentPrinter, volumeSnapshotPrinter } from "./snapshot-printers.ts";

const now = parseRfc3339("2026-11-23T12:00:00Z");

describe("snapshot printers", () => {
  it("has the columns of kubectl get volumesnapshot", () => {
    assert.deepEqual(
      volumeSnapshotPrinter.columns.map((c) => c.name.toUpperCase()),
      [
        "NAME",
        "READYTOUSE",
        "SOURCEPVC",
        "SOURCESNAPSHOTCONTENT",
        "RESTORESIZE",
        "SNAPSHOTCLASS",
        "SNAPSHOTCONTENT",
        "CREATIONTIME",
        "AGE",
      ],
    );
  });

  it("prints a ready snapshot, its empty source content blank and its creation time as an age", () => {
    const snapshot: VolumeSnapshot = {
      apiVersion: "snapshot.storage.k8s.io/v1",
      kind: "VolumeSnapshot",
      metadata: { name: "data-snap", namespace: "default", creationTimestamp: "2026-11-23T11:55:00Z" },
      spec: { source: { persistentVolumeClaimName: "data" }, volumeSnapshotClassName: "csi-hostpath-snapclass" },
      status: {
        readyToUse: true,
        restoreSize: "1Gi",
        boundVolumeSnapshotContentName: "snapcontent-6f1c",
        creationTime: "2026-11-23T11:58:00Z",
      },
    };
    assert.deepEqual(volumeSnapshotPrinter.row(snapshot, now).cells, [
      "data-snap",
      true,
      "data",
      "",
      "1Gi",
      "csi-hostpath-snapclass",
      "snapcontent-6f1c",
      "2m",
      "5m",
    ]);
  });

  it("prints a content's restore size in bytes and the snapshot it is bound to", () => {
    const content: VolumeSnapshotContent = {
      apiVersion: "snapshot.storage.k8s.io/v1",
      kind: "VolumeSnapshotContent",
      metadata: { name: "snapcontent-6f1c", creationTimestamp: "2026-11-21T12:00:00Z" },
      spec: {
        deletionPolicy: "Delete",
        driver: "hostpath.csi.kvol.io",
        source: { volumeHandle: "vol-1" },
        volumeSnapshotRef: { name: "data-snap", namespace: "default" },
      },
      status: { readyToUse: false, restoreSize: 1073741824 },
    };
    assert.deepEqual(volumeSnapshotContentPrinter.row(content, now).cells, [
      "snapcontent-6f1c",
      false,
      1073741824,
      "Delete",
      "hostpath.csi.kvol.io",
      "",
      "data-snap",
      "default",
      "2d",
    ]);
  });
});
