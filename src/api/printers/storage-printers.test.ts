import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseRfc3339 } from "../../runtime/clock.ts";
import type { PersistentVolume, PersistentVolumeClaim, StorageClass, VolumeAttachment } from "../objects.ts";
import { persistentVolumeClaimPrinter } from "./persistent-volume-claim-printer.ts";
import { persistentVolumePrinter } from "./persistent-volume-printer.ts";
import { storageClassPrinter } from "./storage-class-printer.ts";
import { volumeAttachmentPrinter } from "./volume-attachment-printer.ts";

const now = parseRfc3339("2026-11-23T12:00:00Z");
const twoDaysAgo = "2026-11-21T12:00:00Z";

const boundVolume: PersistentVolume = {
  apiVersion: "v1",
  kind: "PersistentVolume",
  metadata: { name: "pvc-1234", creationTimestamp: twoDaysAgo },
  spec: {
    capacity: { storage: "1024Mi" },
    accessModes: ["ReadWriteMany", "ReadWriteOnce", "ReadWriteOnce"],
    persistentVolumeReclaimPolicy: "Delete",
    storageClassName: "standard",
    claimRef: { namespace: "default", name: "data-web-0" },
  },
  status: { phase: "Bound" },
};

describe("persistent volume printer", () => {
  it("prints a bound volume as kubectl get pv does", () => {
    assert.deepEqual(persistentVolumePrinter.row(boundVolume, now).cells, [
      "pvc-1234",
      "1Gi",
      "RWO,RWX",
      "Delete",
      "Bound",
      "default/data-web-0",
      "standard",
      "<unset>",
      "",
      "2d",
      "<unset>",
    ]);
  });

  it("prints Terminating for a volume being deleted and reads the beta class annotation", () => {
    const deleting: PersistentVolume = {
      ...boundVolume,
      metadata: {
        ...boundVolume.metadata,
        deletionTimestamp: twoDaysAgo,
        annotations: { "volume.beta.kubernetes.io/storage-class": "legacy" },
      },
      status: { phase: "Released", reason: "" },
    };
    const cells = persistentVolumePrinter.row(deleting, now).cells;
    assert.equal(cells[4], "Terminating");
    assert.equal(cells[6], "legacy");
  });

  it("has the columns of kubectl get pv", () => {
    assert.deepEqual(
      persistentVolumePrinter.columns.filter((c) => c.priority === 0).map((c) => c.name.toUpperCase()),
      [
        "NAME",
        "CAPACITY",
        "ACCESS MODES",
        "RECLAIM POLICY",
        "STATUS",
        "CLAIM",
        "STORAGECLASS",
        "VOLUMEATTRIBUTESCLASS",
        "REASON",
        "AGE",
      ],
    );
  });
});

describe("persistent volume claim printer", () => {
  const claim: PersistentVolumeClaim = {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: "data-web-0", namespace: "default", creationTimestamp: twoDaysAgo },
    spec: { accessModes: ["ReadWriteOnce"], storageClassName: "standard", resources: { requests: { storage: "1Gi" } } },
    status: { phase: "Pending" },
  };

  it("leaves capacity and access modes empty while pending", () => {
    assert.deepEqual(persistentVolumeClaimPrinter.row(claim, now).cells, [
      "data-web-0",
      "Pending",
      "",
      "",
      "",
      "standard",
      "<unset>",
      "2d",
      "<unset>",
    ]);
  });

  it("shows what the bound volume gave the claim", () => {
    const bound: PersistentVolumeClaim = {
      ...claim,
      spec: { ...claim.spec, volumeName: "pvc-1234", volumeMode: "Filesystem" },
      status: { phase: "Bound", capacity: { storage: "2Gi" }, accessModes: ["ReadWriteOnce"] },
    };
    assert.deepEqual(persistentVolumeClaimPrinter.row(bound, now).cells.slice(1, 5), [
      "Bound",
      "pvc-1234",
      "2Gi",
      "RWO",
    ]);
    assert.equal(persistentVolumeClaimPrinter.row(bound, now).cells[8], "Filesystem");
  });
});

describe("storage class printer", () => {
  it("marks the default class and prints the API defaults of unset policies", () => {
    const storageClass: StorageClass = {
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: {
        name: "standard",
        creationTimestamp: twoDaysAgo,
        annotations: { "storageclass.kubernetes.io/is-default-class": "true" },
      },
      provisioner: "kvol.io/sim-disk",
    };
    assert.deepEqual(storageClassPrinter.row(storageClass, now).cells, [
      "standard (default)",
      "kvol.io/sim-disk",
      "Delete",
      "Immediate",
      false,
      "2d",
    ]);
  });
});

describe("volume attachment printer", () => {
  it("prints attacher, volume, node and whether it is attached", () => {
    const attachment: VolumeAttachment = {
      apiVersion: "storage.k8s.io/v1",
      kind: "VolumeAttachment",
      metadata: { name: "csi-abc", creationTimestamp: twoDaysAgo },
      spec: { attacher: "hostpath.csi.k8s.io", nodeName: "node-2", source: { persistentVolumeName: "pvc-1234" } },
      status: { attached: true },
    };
    assert.deepEqual(volumeAttachmentPrinter.row(attachment, now).cells, [
      "csi-abc",
      "hostpath.csi.k8s.io",
      "pvc-1234",
      "node-2",
      true,
      "2d",
    ]);
  });
});
