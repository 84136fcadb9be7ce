import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changed, problemsOf } from "./testing/test-support.ts";

const storageClass: Record<string, unknown> = {
  apiVersion: "storage.k8s.io/v1",
  kind: "StorageClass",
  metadata: { name: "csi-hostpath", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
  provisioner: "hostpath.csi.k8s.io",
  parameters: { "csi.storage.k8s.io/fstype": "ext4" },
  reclaimPolicy: "Delete",
  volumeBindingMode: "WaitForFirstConsumer",
  allowVolumeExpansion: true,
  allowedTopologies: [{ matchLabelExpressions: [{ key: "topology.hostpath.csi/node", values: ["node-1", "node-2"] }] }],
};

describe("StorageClass", () => {
  it("accepts a CSI class", () => {
    assert.deepEqual(problemsOf("StorageClass", storageClass), []);
  });

  it("requires a provisioner", () => {
    const none = changed(storageClass, (copy) => {
      delete copy.provisioner;
    });
    assert.deepEqual(problemsOf("StorageClass", none), ["provisioner: Required value"]);
  });

  it("names the supported reclaim policies and binding modes", () => {
    const odd = changed(storageClass, (copy) => {
      copy.reclaimPolicy = "Recycle";
      copy.volumeBindingMode = "Lazy";
    });
    assert.deepEqual(problemsOf("StorageClass", odd), [
      'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
      'volumeBindingMode: Unsupported value: "Lazy": supported values: "Immediate", "WaitForFirstConsumer"',
    ]);
  });

  it("requires topology values", () => {
    const empty = changed(storageClass, (copy) => {
      copy.allowedTopologies = [{ matchLabelExpressions: [{ key: "zone", values: [] }] }];
    });
    assert.deepEqual(problemsOf("StorageClass", empty), [
      "allowedTopologies[0].matchLabelExpressions[0].values: Required value",
    ]);
  });

  it("keeps parameters, provisioner, reclaim policy and binding mode on update", () => {
    const edited = changed(storageClass, (copy) => {
      copy.parameters = { "csi.storage.k8s.io/fstype": "xfs" };
      copy.provisioner = "other.csi.k8s.io";
      copy.reclaimPolicy = "Retain";
      copy.volumeBindingMode = "Immediate";
    });
    assert.deepEqual(problemsOf("StorageClass", edited, storageClass), [
      "parameters: Forbidden: updates to parameters are forbidden.",
      "provisioner: Forbidden: updates to provisioner are forbidden.",
      "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.",
      'volumeBindingMode: Invalid value: "Immediate": field is immutable',
    ]);
  });

  it("allows other changes and treats defaults as unchanged", () => {
    const relabelled = changed(storageClass, (copy) => {
      copy.metadata = { name: "csi-hostpath" };
      copy.allowVolumeExpansion = false;
    });
    assert.deepEqual(problemsOf("StorageClass", relabelled, storageClass), []);
    const defaulted = changed(storageClass, (copy) => {
      delete copy.reclaimPolicy;
    });
    assert.deepEqual(problemsOf("StorageClass", defaulted, storageClass), []);
  });
});
