import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Indexer } from "../../api/informer/indexer.ts";
import { Lister } from "../../api/informer/lister.ts";
import type { CSINode, Node } from "../../api/objects.ts";
import { type AccessibilityRequest, accessibilityRequirements, spreadOffset } from "./topology.ts";
import { fnv32 } from "./topology-term.ts";

const driverName = "disk.csi.example.com";
const zone = "topology.example.com/zone";
const rack = "topology.example.com/rack";

function listerOf<T extends { metadata?: { name?: string } }>(objects: T[]): Lister<T> {
  const indexer = new Indexer<T>();
  for (const object of objects) indexer.upsert(object);
  return new Lister(indexer);
}

function node(name: string, labels: Record<string, string>): Node {
  return { metadata: { name, labels } };
}

function csiNode(name: string, topologyKeys: string[] | undefined): CSINode {
  return {
    metadata: { name },
    spec: { drivers: topologyKeys ? [{ name: driverName, nodeID: `id-${name}`, topologyKeys }] : [] },
  };
}

function cluster(): Pick<AccessibilityRequest, "nodes" | "csiNodes"> {
  return {
    nodes: listerOf([
      node("a", { [zone]: "z1", [rack]: "r1" }),
      node("b", { [zone]: "z2", [rack]: "r1" }),
      node("c", { [zone]: "z1", [rack]: "r1" }),
      node("no-labels", {}),
    ]),
    csiNodes: listerOf([
      csiNode("a", [zone]),
      csiNode("b", [zone]),
      csiNode("c", [zone]),
      csiNode("no-labels", undefined),
    ]),
  };
}

function request(overrides: Partial<AccessibilityRequest>): AccessibilityRequest {
  return {
    driverName,
    claimName: "data",
    allowedTopologies: [],
    selectedNode: undefined,
    strictTopology: false,
    immediateTopology: true,
    ...cluster(),
    ...overrides,
  };
}

const segments = (value: string) => ({ segments: { [zone]: value } });

describe("accessibility requirements", () => {
  it("WaitForFirstConsumer: every zone of the cluster is requisite, the selected node's preferred first", () => {
    const selectedNode = node("b", { [zone]: "z2", [rack]: "r1" });
    assert.deepEqual(accessibilityRequirements(request({ selectedNode })), {
      requisite: [segments("z1"), segments("z2")],
      preferred: [segments("z2"), segments("z1")],
    });
  });

  it("strict topology requires exactly the selected node's topology", () => {
    const selectedNode = node("b", { [zone]: "z2" });
    assert.deepEqual(accessibilityRequirements(request({ selectedNode, strictTopology: true })), {
      requisite: [segments("z2")],
      preferred: [segments("z2")],
    });
  });

  it("allowedTopologies are distributed: ANDed keys, ORed values", () => {
    const allowedTopologies = [
      {
        matchLabelExpressions: [
          { key: zone, values: ["z1", "z2"] },
          { key: rack, values: ["r1"] },
        ],
      },
    ];
    const result = accessibilityRequirements(request({ allowedTopologies }));
    assert.deepEqual(result?.requisite, [
      { segments: { [rack]: "r1", [zone]: "z1" } },
      { segments: { [rack]: "r1", [zone]: "z2" } },
    ]);
  });

  it("Immediate: StatefulSet replicas start on consecutive zones", () => {
    const first = accessibilityRequirements(request({ claimName: "data-web-0" }))?.preferred[0];
    const second = accessibilityRequirements(request({ claimName: "data-web-1" }))?.preferred[0];
    assert.notDeepEqual(first, second);
    assert.equal(spreadOffset("data-web-7"), (fnv32("data-web") + 7) >>> 0);
    assert.equal(spreadOffset("data"), fnv32("data"));
  });

  it("Immediate without immediate topology asks for nothing", () => {
    assert.equal(accessibilityRequirements(request({ immediateTopology: false })), null);
  });

  it("says why a selected node cannot be placed", () => {
    assert.throws(
      () => accessibilityRequirements(request({ selectedNode: node("no-labels", {}) })),
      /^Error: no topology key found on CSINode no-labels$/,
    );
    assert.throws(
      () => accessibilityRequirements(request({ selectedNode: node("a", { other: "x" }) })),
      /topology labels from selected node map\[other:x\] does not match topology keys from CSINode \[topology\.example\.com\/zone\]/,
    );
    assert.throws(
      () => accessibilityRequirements(request({ selectedNode: node("ghost", {}) })),
      /error getting CSINode for selected node "ghost"/,
    );
  });

  it("FNV-32 matches Go's hash/fnv New32", () => {
    assert.equal(fnv32(""), 0x811c9dc5);
    assert.equal(fnv32("a"), 0x050c5d7e);
  });
});
