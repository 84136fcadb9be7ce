import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rng } from "../../../runtime/rng.ts";
import { VirtualClock } from "../../../runtime/virtual-clock.ts";
import { VolumeSpec } from "../../../volume/spec.ts";
import { ActualStateOfWorld } from "./actual-state-of-world.ts";

function asw(): { clock: VirtualClock; state: ActualStateOfWorld; changes: () => number } {
  const clock = new VirtualClock();
  let changes = 0;
  // No pod wants anything here: every attachment is unwanted.
  const state = new ActualStateOfWorld(clock, () => false);
  state.onChange(() => changes++);
  return { clock, state, changes: () => changes };
}

/** Reaches the private per-node index, to corrupt it as a bug would. */
function volumesByNode(state: ActualStateOfWorld): Map<string, Set<string>> {
  return (state as unknown as { volumesByNode: Map<string, Set<string>> }).volumesByNode;
}

describe("ActualStateOfWorld (attach/detach controller)", () => {
  it("assumes a new attachment is in use until the node's volumesInUse says otherwise", () => {
    const { state } = asw();
    state.markVolumeAsAttached("vol-a", undefined, "node-1", "/dev/a");
    state.markVolumeAsAttached("vol-b", undefined, "node-1", "/dev/b");
    assert.deepEqual(
      state.getAttachedVolumes().map((entry) => entry.mountedByNode),
      [true, true],
    );
    state.setVolumesMountedByNode("node-1", ["vol-b"]);
    assert.deepEqual(
      state.getAttachedVolumes().map((entry) => [entry.volumeName, entry.mountedByNode]),
      [
        ["vol-a", false],
        ["vol-b", true],
      ],
    );
  });

  it("keeps uncertain attachments out of the node status and out of the Multi-Attach check", () => {
    const { state } = asw();
    state.markVolumeAsAttached("vol-a", undefined, "node-1", "/dev/a");
    state.markVolumeAsUncertain("vol-a", undefined, "node-2");
    assert.equal(state.getAttachState("vol-a", "node-2"), "Uncertain");
    assert.deepEqual(state.getNodesForAttachedVolume("vol-a"), ["node-1"]);
    assert.deepEqual(state.takeVolumesToReportAttached("node-1"), [{ name: "vol-a", devicePath: "/dev/a" }]);
    assert.equal(state.takeVolumesToReportAttached("node-2"), undefined);
    assert.deepEqual([...state.getAttachedVolumesPerNode().keys()], ["node-1"], "only confirmed ones are verified");
  });

  it("reports a node's status once per change and drops a detached volume from it", () => {
    const { state } = asw();
    state.markVolumeAsAttached("vol-b", undefined, "node-1", "/dev/b");
    state.markVolumeAsAttached("vol-a", undefined, "node-1", "/dev/a");
    assert.deepEqual(state.nodesNeedingStatusUpdate(), ["node-1"]);
    assert.equal(state.anyNodeNeedsStatusUpdate(), true);
    assert.deepEqual(
      state.takeVolumesToReportAttached("node-1")?.map((entry) => entry.name),
      ["vol-a", "vol-b"],
    );
    assert.deepEqual(state.nodesNeedingStatusUpdate(), []);
    assert.equal(state.anyNodeNeedsStatusUpdate(), false);
    state.removeVolumeFromReportAsAttached("vol-a", "node-1");
    assert.deepEqual(
      state.takeVolumesToReportAttached("node-1")?.map((entry) => entry.name),
      ["vol-b"],
    );
    state.markVolumeAsDetached("vol-b", "node-1");
    assert.deepEqual(state.takeVolumesToReportAttached("node-1"), []);
    assert.equal(state.getAttachState("vol-b", "node-1"), "Detached");
    assert.throws(() => state.removeVolumeFromReportAsAttached("vol-a", "node-9"), /node "node-9" does not exist/);
  });

  it("starts the detach timer at the first request and resets it when the volume is wanted again", async () => {
    const { clock, state } = asw();
    state.markVolumeAsAttached("vol-a", undefined, "node-1", "");
    assert.equal(state.setDetachRequestTime("vol-a", "node-1"), 0);
    await clock.advanceBy(90_000);
    assert.equal(state.setDetachRequestTime("vol-a", "node-1"), 90_000);
    state.resetDetachRequestTime("vol-a", "node-1");
    await clock.advanceBy(10_000);
    assert.equal(state.setDetachRequestTime("vol-a", "node-1"), 0);
  });

  it("keeps a known spec when a restart reports the attachment without one", () => {
    const { state } = asw();
    const spec = VolumeSpec.fromPersistentVolume({ metadata: { name: "data" } });
    state.markVolumeAsAttached("vol-a", spec, "node-1", "/dev/a");
    state.markVolumeAsAttached("vol-a", undefined, "node-2", "/dev/a");
    assert.equal(state.volumeSpec("vol-a"), spec);
  });

  it("signals changes that matter, and stays quiet when nothing changed", () => {
    const { state, changes } = asw();
    state.markVolumeAsAttached("vol-a", undefined, "node-1", "/dev/a");
    const afterAttach = changes();
    state.setVolumesMountedByNode("node-1", ["vol-a"]);
    assert.equal(changes(), afterAttach, "already assumed mounted");
    state.setVolumesMountedByNode("node-1", []);
    assert.equal(changes(), afterAttach + 1);
  });

  it("attaches a pair again after its detach, with nothing left of the first attachment", () => {
    const { state } = asw();
    state.markVolumeAsAttached("vol-a", undefined, "node-1", "/dev/a");
    state.setVolumesMountedByNode("node-1", []);
    state.markVolumeAsDetached("vol-a", "node-1");
    assert.deepEqual(state.getAttachedVolumesPerNode(), new Map());
    state.markVolumeAsAttached("vol-a", undefined, "node-1", "/dev/b");
    assert.deepEqual(
      state.getAttachedVolumes().map((entry) => [entry.nodeName, entry.devicePath, entry.mountedByNode]),
      [["node-1", "/dev/b", true]],
    );
  });

  it("takes a second detach of a node's last volume as done (the operation and the VolumeAttachment's deletion both report it)", () => {
    const { state } = asw();
    state.markVolumeAsAttached("vol-a", undefined, "node-1", "/dev/a");
    state.markVolumeAsDetached("vol-a", "node-1");
    state.markVolumeAsDetached("vol-a", "node-1");
    assert.equal(state.getAttachState("vol-a", "node-1"), "Detached");
    assert.deepEqual(state.getAttachedVolumesPerNode(), new Map());
  });

  it("lists the attachments no pod wants in the order of all attachments, however they came and went", () => {
    const wanted = new Set<string>();
    const state = new ActualStateOfWorld(new VirtualClock(), (volume, node) => wanted.has(`${volume}@${node}`));
    const rng = new Rng(7);
    for (let step = 0; step < 2_000; step++) {
      const volume = `vol-${rng.int(0, 5)}`;
      const node = `node-${rng.int(0, 3)}`;
      const pair = `${volume}@${node}`;
      const action = rng.int(0, 4);
      if (action === 0) state.markVolumeAsAttached(volume, undefined, node, "");
      // Uncertain: a new pair arrives unwanted (or wanted) as uncertain; an attached one turns uncertain.
      else if (action === 1) state.markVolumeAsUncertain(volume, undefined, node);
      else if (action === 2) state.markVolumeAsDetached(volume, node);
      else {
        if (action === 3) wanted.add(pair);
        else wanted.delete(pair);
        state.wantedChanged(volume, node);
      }
      const pairs = (entries: { volumeName: string; nodeName: string; attachState: string }[]) =>
        entries.map((entry) => `${entry.volumeName}@${entry.nodeName} ${entry.attachState}`);
      assert.deepEqual(
        pairs(state.attachedVolumesNotWanted()),
        pairs(
          state.getAttachedVolumes().filter((attached) => !wanted.has(`${attached.volumeName}@${attached.nodeName}`)),
        ),
        `after step ${step}`,
      );
    }
  });

  it("lets a detach pass read its listed pairs as they were when listed, whatever changes meanwhile", async () => {
    const { clock, state } = asw();
    const first = VolumeSpec.fromPersistentVolume({ metadata: { name: "data" } });
    state.markVolumeAsAttached("vol-a", first, "node-1", "/dev/a");
    state.markVolumeAsUncertain("vol-b", undefined, "node-1");
    state.setDetachRequestTime("vol-a", "node-1");
    const listed = state.listAttachmentsNotWanted();
    const copies = state.attachedVolumesNotWanted();
    // What a pass's awaits may let happen: the node's report, a newer spec and device path, a confirmed attach, a detach.
    state.setVolumesMountedByNode("node-1", []);
    state.markVolumeAsAttached(
      "vol-a",
      VolumeSpec.fromPersistentVolume({ metadata: { name: "data-2" } }),
      "node-1",
      "/dev/a2",
    );
    state.markVolumeAsAttached("vol-b", undefined, "node-1", "/dev/b");
    state.markVolumeAsDetached("vol-b", "node-1");
    await clock.advanceBy(5_000);
    assert.deepEqual(
      listed.map((pair) => state.listedAttachment(pair)),
      copies,
    );
    assert.deepEqual(
      listed.map((pair) => [state.listedMountedByNode(pair), state.currentDetachRequestedAgoMs(pair)]),
      [
        [true, 5_000],
        // The detach request time is read as it is now: vol-b is no longer attached.
        [true, undefined],
      ],
    );
    // The next listing reads the state as it is then.
    const [again] = state.listAttachmentsNotWanted();
    assert.ok(again !== undefined);
    assert.deepEqual(state.listedAttachment(again), {
      volumeName: "vol-a",
      volumeSpec: state.volumeSpec("vol-a"),
      nodeName: "node-1",
      devicePath: "/dev/a2",
      mountedByNode: false,
      attachState: "Attached",
    });
  });

  it("stops at the first change that finds volumesByNode out of step with attachedVolumes, naming the pair", () => {
    const { state } = asw();
    state.markVolumeAsAttached("vol-a", undefined, "node-1", "/dev/a");
    volumesByNode(state).get("node-1")?.delete("vol-a");
    assert.throws(() => state.markVolumeAsDetached("vol-a", "node-1"), {
      name: "InvariantViolation",
      message: 'invariant violated for volume "vol-a" on node "node-1": attached, but missing from volumesByNode',
    });
    assert.equal(state.getAttachState("vol-a", "node-1"), "Attached", "the refused change changed nothing");
    assert.throws(() => state.markVolumeAsUncertain("vol-a", undefined, "node-1"), {
      message: 'invariant violated for volume "vol-a" on node "node-1": attached, but missing from volumesByNode',
    });
  });

  it("refuses an index entry for a volume that is not attached, naming the pair", () => {
    const { state } = asw();
    volumesByNode(state).set("node-1", new Set(["vol-x"]));
    assert.throws(() => state.setVolumesMountedByNode("node-1", []), {
      name: "InvariantViolation",
      message: 'invariant violated for volume "vol-x" on node "node-1": in volumesByNode, but not attached',
    });
    assert.throws(() => state.markVolumeAsAttached("vol-x", undefined, "node-1", ""), {
      message: 'invariant violated for volume "vol-x" on node "node-1": in volumesByNode, but not attached',
    });
  });
});
