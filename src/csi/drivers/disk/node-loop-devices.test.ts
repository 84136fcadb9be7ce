import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CommandResult, Host } from "../../../host/host.ts";
import { loopDevicesOverInode, nodeLinksDir, nodeLoopDevices } from "./node-loop-devices.ts";

/** A machine whose `losetup -j` prints `output`, as util-linux prints it. */
function losetupPrinting(output: string): Host {
  const partial: Pick<Host, "run"> = {
    run: async (command, args): Promise<CommandResult> => {
      assert.deepEqual([command, args[0]], ["losetup", "-j"]);
      return { exitCode: 0, output };
    },
  };
  return partial as Host;
}

const listing = [
  "/dev/loop3: [65024]:4276475 (/data/disks/nodes/node-1/pvc-1.img)",
  "/dev/loop5: [65024]:4276475 (/data/disks/nodes/node-2/pvc-1.img), offset 4611686018427387904",
  "/dev/loop7: [65024]:4276475 (/data/disks/nodes/node-2/pvc-1.img (deleted)), offset 4611686018427387904",
  "/dev/loop9: [65024]:4276475 (/data/disks/pvc-1.img)",
  "",
].join("\n");

describe("a fenceable disk's loop devices, one per node", () => {
  it("reads each device's backing path, a fenced one's (with its offset) and a deleted link's included", async () => {
    assert.deepEqual(await loopDevicesOverInode(losetupPrinting(listing), "/data/disks/pvc-1.img"), [
      { device: "/dev/loop3", backingFile: "/data/disks/nodes/node-1/pvc-1.img" },
      { device: "/dev/loop5", backingFile: "/data/disks/nodes/node-2/pvc-1.img" },
      { device: "/dev/loop7", backingFile: "/data/disks/nodes/node-2/pvc-1.img" },
      { device: "/dev/loop9", backingFile: "/data/disks/pvc-1.img" },
    ]);
  });

  it("tells a node's devices by its link, even under a path the kernel resolved differently", async () => {
    const host = losetupPrinting(listing);
    assert.deepEqual(await nodeLoopDevices(host, "/data/disks/pvc-1.img", "/data/disks/nodes/node-1/pvc-1.img"), [
      "/dev/loop3",
    ]);
    assert.deepEqual(await nodeLoopDevices(host, "/link/disks/pvc-1.img", "/link/disks/nodes/node-2/pvc-1.img"), [
      "/dev/loop5",
      "/dev/loop7",
    ]);
    assert.deepEqual(await nodeLoopDevices(host, "/data/disks/pvc-1.img", "/data/disks/nodes/node-3/pvc-1.img"), []);
  });

  it("refuses a node name that is not a DNS name before it becomes a path", () => {
    assert.equal(nodeLinksDir("/data/disks", "node-1.zone-a"), "/data/disks/nodes/node-1.zone-a");
    assert.throws(
      () => nodeLinksDir("/data/disks", "../etc"),
      /^Error: node name "\.\.\/etc" cannot name a directory of disk links: it must be letters, digits, "-" and "\."$/,
    );
  });
});
