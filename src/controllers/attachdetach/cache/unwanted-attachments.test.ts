import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { UnwantedAttachments } from "./unwanted-attachments.ts";

/** A volume of the actual state with its nodes in the order they were attached. */
function volumeOn(order: number, ...nodeNames: string[]) {
  return { order, nodesAttachedTo: new Map(nodeNames.map((nodeName) => [nodeName, { nodeName }])) };
}

type Volume = ReturnType<typeof volumeOn>;

function addPair(unwanted: UnwantedAttachments<Volume, { nodeName: string }>, volume: Volume, nodeName: string) {
  const attachment = volume.nodesAttachedTo.get(nodeName);
  assert.ok(attachment !== undefined, nodeName);
  unwanted.add(`vol-${volume.order}`, nodeName, volume, attachment);
}

const pairs = (unwanted: UnwantedAttachments<Volume, { nodeName: string }>) =>
  unwanted.entries().map((entry) => `${entry.volumeName}@${entry.nodeName}`);

describe("UnwantedAttachments", () => {
  it("keeps a volume's nodes in the order they were attached, whatever order they are added in", () => {
    const volume = volumeOn(0, "node-b", "node-a", "node-c");
    const unwanted = new UnwantedAttachments<Volume, { nodeName: string }>();
    for (const nodeName of ["node-c", "node-a", "node-b", "node-a"]) addPair(unwanted, volume, nodeName);
    assert.deepEqual(pairs(unwanted), ["vol-0@node-b", "vol-0@node-a", "vol-0@node-c"]);
  });

  it("lists volumes in the order they were first attached, across additions and removals between reads", () => {
    const volumes = [0, 1, 2, 3, 4].map((order) => volumeOn(order, "node-1"));
    const unwanted = new UnwantedAttachments<Volume, { nodeName: string }>();
    for (const order of [3, 1]) addPair(unwanted, volumes[order] as Volume, "node-1");
    const first = pairs(unwanted);
    for (const order of [4, 0, 2]) addPair(unwanted, volumes[order] as Volume, "node-1");
    unwanted.delete((volumes[1] as Volume).nodesAttachedTo.get("node-1") as { nodeName: string });
    unwanted.delete((volumes[2] as Volume).nodesAttachedTo.get("node-1") as { nodeName: string });
    assert.deepEqual(first, ["vol-1@node-1", "vol-3@node-1"], "a list read earlier is not changed");
    assert.deepEqual(pairs(unwanted), ["vol-0@node-1", "vol-3@node-1", "vol-4@node-1"]);
    // Removed, then added again: listed again, in its place.
    addPair(unwanted, volumes[1] as Volume, "node-1");
    assert.deepEqual(pairs(unwanted), ["vol-0@node-1", "vol-1@node-1", "vol-3@node-1", "vol-4@node-1"]);
  });

  it("stops the removal, naming the pair, when the node left the volume before the index", () => {
    const volume = volumeOn(0, "node-a", "node-b");
    const unwanted = new UnwantedAttachments<Volume, { nodeName: string }>();
    addPair(unwanted, volume, "node-a");
    addPair(unwanted, volume, "node-b");
    const attachment = volume.nodesAttachedTo.get("node-a") as { nodeName: string };
    // A bug's effect: the node left the volume first.
    volume.nodesAttachedTo.delete("node-a");
    assert.throws(() => unwanted.delete(attachment), {
      name: "InvariantViolation",
      message:
        'invariant violated for volume "vol-0" on node "node-a": left the volume\'s nodesAttachedTo before it left the unwanted attachments',
    });
  });

  it("refuses an attachment that is not the volume's on that node", () => {
    const volume = volumeOn(0, "node-a");
    const unwanted = new UnwantedAttachments<Volume, { nodeName: string }>();
    assert.throws(() => unwanted.add("vol-0", "node-a", volume, { nodeName: "node-a" }), {
      name: "InvariantViolation",
      message:
        'invariant violated for volume "vol-0" on node "node-a": added with an attachment that is not the volume\'s on that node',
    });
    assert.deepEqual(pairs(unwanted), []);
  });

  it("stops, naming the pair, when two nodes it must order have both left the volume", () => {
    const volume = volumeOn(0, "node-a", "node-b");
    const unwanted = new UnwantedAttachments<Volume, { nodeName: string }>();
    addPair(unwanted, volume, "node-a");
    addPair(unwanted, volume, "node-b");
    // A bug's effect: the nodes left the volume without leaving the index first.
    volume.nodesAttachedTo.clear();
    // Which of the two it names first is the sort's choice.
    assert.throws(() => unwanted.entries(), {
      name: "InvariantViolation",
      message:
        /^invariant violated for volume "vol-0" on node "node-(a|b)": ordered against node "node-(a|b)", but neither node is in the volume's nodesAttachedTo$/,
    });
  });
});
