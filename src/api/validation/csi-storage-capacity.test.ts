import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CSIStorageCapacity } from "../objects.ts";
import { csiStorageCapacityPrinter } from "../printers/other-printers.ts";
import { changed, problemsOf } from "./testing/test-support.ts";

const capacity = {
  apiVersion: "storage.k8s.io/v1",
  kind: "CSIStorageCapacity",
  metadata: { name: "csisc-abcde", namespace: "kube-system" },
  storageClassName: "fast",
  nodeTopology: { matchLabels: { "topology.hostpath.csi.kvol.io/node": "node-1" } },
  capacity: "10Gi",
  maximumVolumeSize: "10Gi",
};

describe("CSIStorageCapacity", () => {
  it("accepts what the capacity controller writes", () => {
    assert.deepEqual(problemsOf("CSIStorageCapacity", capacity), []);
  });

  it("requires a class name and refuses negative sizes", () => {
    const broken = changed(capacity, (copy) => {
      copy.storageClassName = "";
      copy.capacity = "-1Gi";
    });
    assert.deepEqual(problemsOf("CSIStorageCapacity", broken), [
      "storageClassName: Required value",
      'capacity: Invalid value: "-1Gi": must be greater than or equal to 0',
    ]);
  });

  it("lets the capacity change but not the class or the topology", () => {
    const refreshed = changed(capacity, (copy) => {
      copy.capacity = "5Gi";
    });
    assert.deepEqual(problemsOf("CSIStorageCapacity", refreshed, capacity), []);
    const moved = changed(capacity, (copy) => {
      copy.storageClassName = "slow";
      copy.nodeTopology = { matchLabels: { "topology.hostpath.csi.kvol.io/node": "node-2" } };
    });
    const immutable = problemsOf("CSIStorageCapacity", moved, capacity).filter((line) =>
      line.endsWith("field is immutable"),
    );
    assert.equal(immutable[0], 'storageClassName: Invalid value: "slow": field is immutable');
    assert.match(immutable[1] ?? "", /^nodeTopology: Invalid value: .*node-2.*: field is immutable$/);
    assert.equal(immutable.length, 2);
  });

  it("prints NAME, STORAGECLASSNAME and CAPACITY as kubectl get csistoragecapacities does", () => {
    assert.deepEqual(csiStorageCapacityPrinter.row(capacity as CSIStorageCapacity, 0).cells, [
      "csisc-abcde",
      "fast",
      "10Gi",
    ]);
    const unset = { ...capacity, capacity: undefined } as CSIStorageCapacity;
    assert.equal(csiStorageCapacityPrinter.row(unset, 0).cells[2], "<unset>");
  });
});
