import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { UnwantedAttachments } from "./unwanted-attachments.ts";

describe("UnwantedAttachments", () => {
  it("keeps a volume's nodes in the order they were attached, whatever order they are added in", () => {
    const volume = {
      order: 0,
      nodesAttachedTo: new Map([
        ["node-b", {}],
        ["node-a", {}],
        ["node-c", {}],
      ]),
    };
    const unwanted = new UnwantedAttachments<typeof volume, object>();
    for (const nodeName of ["node-c", "node-a", "node-b", "node-a"]) {
      unwanted.add({ volumeName: "vol-a", nodeName, volume, attachment: {} });
    }
    assert.deepEqual(
      unwanted.entries().map((entry) => entry.nodeName),
      ["node-b", "node-a", "node-c"],
    );
  });

  it("stops, naming the pair, when two nodes it must order have both left the volume", () => {
    const volume = {
      order: 0,
      nodesAttachedTo: new Map([
        ["node-a", {}],
        ["node-b", {}],
      ]),
    };
    const unwanted = new UnwantedAttachments<typeof volume, object>();
    unwanted.add({ volumeName: "vol-a", nodeName: "node-a", volume, attachment: {} });
    unwanted.add({ volumeName: "vol-a", nodeName: "node-b", volume, attachment: {} });
    // A bug's effect: the nodes left the volume without leaving the index first.
    volume.nodesAttachedTo.clear();
    assert.throws(() => unwanted.delete(volume, "node-b"), {
      name: "InvariantViolation",
      message:
        'invariant violated for volume "vol-a" on node "node-a": ordered against node "node-b", but neither node is in the volume\'s nodesAttachedTo',
    });
  });
});
