import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { node } from "./testing/pv-cluster.ts";
import { chooseZone, chooseZoneForClaim, fnv1Hash32 } from "./zone-selection.ts";

const zones = ["zone-a", "zone-b", "zone-c"];
const allowedTopologies = [{ matchLabelExpressions: [{ key: "topology.kubernetes.io/zone", values: zones }] }];

describe("choosing a zone for a new disk", () => {
  it("hashes like Go's hash/fnv New32", () => {
    assert.equal(fnv1Hash32(""), 0x811c9dc5);
    assert.equal(fnv1Hash32("a"), 0x050c5d7e);
  });

  it("takes the selected node's zone", () => {
    assert.equal(chooseZone({ claimName: "data", selectedNode: node("n1", "zone-c"), allowedTopologies }), "zone-c");
    assert.equal(chooseZone({ claimName: "data", selectedNode: node("n1") }), undefined);
  });

  it("spreads a StatefulSet's claims over consecutive zones and keeps one member's claims together", () => {
    const web = [0, 1, 2, 3].map((ordinal) => chooseZoneForClaim(zones, `data-web-${ordinal}`));
    const start = zones.indexOf(web[0] as string);
    assert.deepEqual(
      web,
      [0, 1, 2, 3].map((offset) => zones[(start + offset) % zones.length]),
    );
    assert.equal(chooseZoneForClaim(zones, "logs-web-2"), web[2], "same member, same zone");
  });

  it("refuses allowed topologies that name no zone", () => {
    const byHost = [{ matchLabelExpressions: [{ key: "kubernetes.io/hostname", values: ["n1"] }] }];
    assert.throws(
      () => chooseZone({ claimName: "data", allowedTopologies: byHost }),
      /^Error: no matchLabelExpressions with topology.kubernetes.io\/zone key found in allowedTopologies. Please specify matchLabelExpressions with topology.kubernetes.io\/zone key$/,
    );
    assert.equal(chooseZone({ claimName: "data" }), undefined, "nothing asks for a zone");
  });
});
