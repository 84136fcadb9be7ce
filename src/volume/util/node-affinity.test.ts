import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolume } from "kubernetes-types/core/v1.js";
import { checkNodeAffinity } from "./node-affinity.ts";

function localPv(
  terms: NonNullable<NonNullable<PersistentVolume["spec"]>["nodeAffinity"]>["required"],
): PersistentVolume {
  return {
    metadata: { name: "local-pv" },
    spec: { local: { path: "/mnt/disks/ssd1" }, nodeAffinity: { required: terms } },
  };
}

const node1 = { metadata: { name: "node-1", labels: { "kubernetes.io/hostname": "node-1", cores: "8" } } };

describe("PV node affinity", () => {
  it("accepts the node a local PV is pinned to and refuses others", () => {
    const pv = localPv({
      nodeSelectorTerms: [
        { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["node-1"] }] },
      ],
    });
    checkNodeAffinity(pv, node1);
    assert.throws(
      () => checkNodeAffinity(pv, { metadata: { name: "node-2", labels: { "kubernetes.io/hostname": "node-2" } } }),
      {
        message: "no matching NodeSelectorTerms",
      },
    );
  });

  it("ORs terms, ANDs requirements, and understands Exists, NotIn, Gt and metadata.name", () => {
    checkNodeAffinity(
      localPv({
        nodeSelectorTerms: [
          { matchExpressions: [{ key: "zone", operator: "Exists" }] },
          {
            matchExpressions: [
              { key: "cores", operator: "Gt", values: ["4"] },
              { key: "gpu", operator: "DoesNotExist" },
              { key: "kubernetes.io/hostname", operator: "NotIn", values: ["node-9"] },
            ],
            matchFields: [{ key: "metadata.name", operator: "In", values: ["node-1"] }],
          },
        ],
      }),
      node1,
    );
    assert.throws(
      () =>
        checkNodeAffinity(
          localPv({ nodeSelectorTerms: [{ matchExpressions: [{ key: "cores", operator: "Lt", values: ["4"] }] }] }),
          node1,
        ),
      { message: "no matching NodeSelectorTerms" },
    );
  });

  it("lets a PV without node affinity go anywhere, but an empty term matches nothing", () => {
    checkNodeAffinity({ metadata: { name: "nfs" }, spec: {} }, node1);
    assert.throws(() => checkNodeAffinity(localPv({ nodeSelectorTerms: [{}] }), node1), {
      message: "no matching NodeSelectorTerms",
    });
  });
});
