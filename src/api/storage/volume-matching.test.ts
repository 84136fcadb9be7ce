import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Node, PersistentVolume, PersistentVolumeClaim } from "../objects.ts";
import { findMatchingVolume, volumeUnsuitableReason } from "./volume-matching.ts";

const zoneLabel = "topology.kubernetes.io/zone";

interface VolumeShape {
  capacity?: string;
  accessModes?: string[];
  className?: string;
  zone?: string;
  claimRef?: { namespace: string; name: string; uid?: string };
  phase?: string;
  attributesClass?: string;
}

function volume(name: string, shape: VolumeShape = {}): PersistentVolume {
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name },
    spec: {
      capacity: { storage: shape.capacity ?? "1Gi" },
      accessModes: shape.accessModes ?? ["ReadWriteOnce"],
      storageClassName: shape.className ?? "fast",
      hostPath: { path: `/mnt/${name}` },
      ...(shape.claimRef ? { claimRef: shape.claimRef } : {}),
      ...(shape.attributesClass ? { volumeAttributesClassName: shape.attributesClass } : {}),
      ...(shape.zone
        ? {
            nodeAffinity: {
              required: {
                nodeSelectorTerms: [{ matchExpressions: [{ key: zoneLabel, operator: "In", values: [shape.zone] }] }],
              },
            },
          }
        : {}),
    },
    status: { phase: shape.phase ?? "Available" },
  };
}

const claim: PersistentVolumeClaim = {
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { namespace: "default", name: "data", uid: "claim-uid" },
  spec: { accessModes: ["ReadWriteOnce"], storageClassName: "fast", resources: { requests: { storage: "1Gi" } } },
};

function nodeIn(zone: string): Node {
  return { apiVersion: "v1", kind: "Node", metadata: { name: `node-${zone}`, labels: { [zoneLabel]: zone } } };
}

function nameOf(match: PersistentVolume | undefined): string | undefined {
  return match?.metadata?.name;
}

describe("findMatchingVolume", () => {
  it("takes the smallest Available volume of the claim's class that holds the request", () => {
    const volumes = [
      volume("big", { capacity: "10Gi" }),
      volume("small", { capacity: "500Mi" }),
      volume("other-class", { capacity: "1Gi", className: "slow" }),
      volume("released", { capacity: "1Gi", phase: "Released" }),
      volume("just-right", { capacity: "2Gi" }),
      volume("also-2gi", { capacity: "2Gi" }),
    ];
    assert.equal(nameOf(findMatchingVolume(claim, volumes)), "just-right", "the first of equals");
  });

  it("returns a volume pre-bound to the claim at once, even when binding is delayed", () => {
    const prebound = volume("prebound", { capacity: "50Gi", claimRef: { namespace: "default", name: "data" } });
    const volumes = [volume("small"), prebound];
    assert.equal(nameOf(findMatchingVolume(claim, volumes)), "prebound");
    assert.equal(nameOf(findMatchingVolume(claim, volumes, { delayBinding: true })), "prebound");
    assert.equal(findMatchingVolume(claim, [volume("small")], { delayBinding: true }), undefined);
    const takenByOther = volume("taken", { claimRef: { namespace: "default", name: "data", uid: "other-uid" } });
    assert.equal(findMatchingVolume(claim, [takenByOther]), undefined, "the same name with another uid");
  });

  it("on the scheduler path, wants the node admitted and every access mode offered", () => {
    const zoneB = nodeIn("zone-b");
    const volumes = [
      volume("zone-a", { zone: "zone-a" }),
      volume("rox-only", { accessModes: ["ReadOnlyMany"] }),
      volume("zone-b", { capacity: "5Gi", zone: "zone-b" }),
    ];
    assert.equal(nameOf(findMatchingVolume(claim, volumes, { node: zoneB, delayBinding: true })), "zone-b");
    assert.equal(findMatchingVolume(claim, volumes, { node: zoneB, excluded: new Set(["zone-b"]) }), undefined);
    const preboundElsewhere = volume("prebound", { zone: "zone-a", claimRef: { namespace: "default", name: "data" } });
    assert.equal(
      findMatchingVolume(claim, [preboundElsewhere, ...volumes], { node: zoneB }),
      undefined,
      "the claim's own volume cannot be used on this node, so nothing can",
    );
  });

  it("skips volumes of another volumeMode or VolumeAttributesClass, and explains a bad selector", () => {
    const block = { ...volume("block"), spec: { ...volume("block").spec, volumeMode: "Block" } };
    const gold = volume("gold", { attributesClass: "gold" });
    assert.equal(findMatchingVolume(claim, [block, gold]), undefined);
    const selecting = { ...claim, spec: { ...claim.spec, selector: { matchLabels: { "bad key!": "x" } } } };
    assert.throws(
      () => findMatchingVolume(selecting, [volume("a")]),
      /error creating internal label selector for claim: default\/data/,
    );
  });
});

describe("volumeUnsuitableReason", () => {
  it("says why a volume asked for by name cannot serve the claim", () => {
    const deleting = volume("old");
    deleting.metadata = { ...deleting.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" };
    assert.equal(volumeUnsuitableReason(deleting, claim), 'the volume is marked for deletion "old"');
    assert.equal(volumeUnsuitableReason(volume("tiny", { capacity: "1Mi" }), claim), "requested PV is too small");
    assert.equal(
      volumeUnsuitableReason(volume("slow", { className: "slow" }), claim),
      "storageClassName does not match",
    );
    assert.equal(
      volumeUnsuitableReason(volume("rox", { accessModes: ["ReadOnlyMany"] }), claim),
      "incompatible accessMode",
    );
    assert.equal(volumeUnsuitableReason(volume("fine", { capacity: "2Gi" }), claim), undefined);
  });
});
