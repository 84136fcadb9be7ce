import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { VolumeSpec } from "../../../volume/spec.ts";
import { DesiredStateOfWorld } from "./desired-state-of-world.ts";

const spec = VolumeSpec.fromPersistentVolume({ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } });

function pod(name: string, namespace = "shop"): Pod {
  return { metadata: { name, namespace, uid: `uid-${name}` }, spec: { containers: [] } };
}

describe("DesiredStateOfWorld (attach/detach controller)", () => {
  it("accepts pods only on managed nodes", () => {
    const dsw = new DesiredStateOfWorld();
    assert.throws(() => dsw.addPod("uid-a", pod("a"), "vol", spec, "node-1"), /no node with the name "node-1"/);
    dsw.addNode("node-1", false);
    dsw.addPod("uid-a", pod("a"), "vol", spec, "node-1");
    assert.equal(dsw.volumeExists("vol", "node-1"), true);
  });

  it("keeps a volume while any scheduled pod wants it", () => {
    const dsw = new DesiredStateOfWorld();
    dsw.addNode("node-1", false);
    dsw.addPod("uid-a", pod("a"), "vol", spec, "node-1");
    dsw.addPod("uid-b", pod("b"), "vol", spec, "node-1");
    assert.deepEqual(
      dsw.getVolumesToAttach().map((volume) => volume.scheduledPods.map((scheduled) => scheduled.metadata?.name)),
      [["a", "b"]],
    );
    dsw.deletePod("uid-a", "vol", "node-1");
    assert.equal(dsw.volumeExists("vol", "node-1"), true);
    dsw.deletePod("uid-b", "vol", "node-1");
    assert.equal(dsw.volumeExists("vol", "node-1"), false);
  });

  it("refuses to forget a node that still has volumes", () => {
    const dsw = new DesiredStateOfWorld();
    dsw.addNode("node-1", false);
    dsw.addPod("uid-a", pod("a"), "vol", spec, "node-1");
    assert.throws(() => dsw.deleteNode("node-1"), /it has 1 volumes associated with it/);
    dsw.deletePod("uid-a", "vol", "node-1");
    dsw.deleteNode("node-1");
    assert.equal(dsw.nodeExists("node-1"), false);
  });

  it("remembers that the Multi-Attach error was reported for one (volume, node)", () => {
    const dsw = new DesiredStateOfWorld();
    dsw.addNode("node-1", false);
    dsw.addNode("node-2", false);
    dsw.addPod("uid-a", pod("a"), "vol", spec, "node-1");
    dsw.addPod("uid-b", pod("b"), "vol", spec, "node-2");
    dsw.setMultiAttachError("vol", "node-2");
    assert.deepEqual(
      dsw.getVolumesToAttach().map((volume) => [volume.nodeName, volume.multiAttachErrorReported]),
      [
        ["node-1", false],
        ["node-2", true],
      ],
    );
    assert.deepEqual(
      dsw.getVolumePodsOnNodes(["node-1"], "vol").map((found) => found.metadata?.name),
      ["a"],
    );
  });

  it("signals a new (volume, node) and a removed one, not a second pod of a wanted volume", () => {
    const dsw = new DesiredStateOfWorld();
    let changes = 0;
    const wantedChanges: string[] = [];
    dsw.onChange(() => changes++);
    dsw.onWantedChange((volume, node) => wantedChanges.push(`${volume}@${node}: ${dsw.volumeExists(volume, node)}`));
    dsw.addNode("node-1", false);
    dsw.addPod("uid-a", pod("a"), "vol", spec, "node-1");
    assert.equal(changes, 2);
    dsw.addPod("uid-b", pod("b"), "vol", spec, "node-1");
    dsw.deletePod("uid-a", "vol", "node-1");
    assert.equal(changes, 2, "the volume is still wanted on the node: nothing for the reconciler");
    dsw.deletePod("uid-b", "vol", "node-1");
    assert.equal(changes, 3);
    assert.equal(dsw.generation, 3);
    assert.deepEqual(wantedChanges, ["vol@node-1: true", "vol@node-1: false"]);
  });
});
