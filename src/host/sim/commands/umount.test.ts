import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newTestWorld } from "../testing/sim-test-world.ts";

async function nodeWithTmpfs(utilLinux: "2.23" | "2.38") {
  const { world } = newTestWorld();
  const node = world.addNode("node-a", { utilLinux });
  await node.mkdir("/mnt/vol", 0o755, { recursive: true });
  assert.equal((await node.run("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", "/mnt/vol"])).exitCode, 0);
  return node;
}

describe("umount", () => {
  it("a held mount is busy: exit 32 with 2.23's lsof hint, until the holder lets go", async () => {
    const node = await nodeWithTmpfs("2.23");
    const hold = await node.holdMountBusy("/mnt/vol");
    const busy = await node.run("umount", ["/mnt/vol"]);
    assert.deepEqual(busy, {
      exitCode: 32,
      output:
        "umount: /mnt/vol: target is busy.\n" +
        "        (In some cases useful info about processes that use\n" +
        "         the device is found by lsof(8) or fuser(1))\n",
    });
    hold.release();
    assert.equal((await node.run("umount", ["/mnt/vol"])).exitCode, 0);
  });

  it("2.38 says target is busy on one line, and not mounted with a full stop", async () => {
    const node = await nodeWithTmpfs("2.38");
    const hold = await node.holdMountBusy("/mnt/vol");
    assert.deepEqual(await node.run("umount", ["/mnt/vol"]), {
      exitCode: 32,
      output: "umount: /mnt/vol: target is busy.\n",
    });
    hold.release();
    assert.equal((await node.run("umount", ["/mnt/vol"])).exitCode, 0);
    assert.deepEqual(await node.run("umount", ["/mnt/vol"]), {
      exitCode: 32,
      output: "umount: /mnt/vol: not mounted.\n",
    });
    assert.deepEqual(await node.run("umount", ["/mnt/missing"]), {
      exitCode: 32,
      output: "umount: /mnt/missing: no mount point specified.\n",
    });
  });

  it("umount -l detaches a busy mount at once", async () => {
    const node = await nodeWithTmpfs("2.23");
    await node.holdMountBusy("/mnt/vol");
    assert.equal((await node.run("umount", ["-l", "/mnt/vol"])).exitCode, 0);
    assert.equal(
      (await node.mountInfo()).some((mount) => mount.mountPoint === "/mnt/vol"),
      false,
    );
  });

  it("a tmpfs with size= refuses writes beyond it", async () => {
    const node = await nodeWithTmpfs("2.23");
    await node.writeFile("/mnt/vol/half", new Uint8Array(600 * 1024));
    await assert.rejects(node.writeFile("/mnt/vol/more", new Uint8Array(600 * 1024)), /no space left on device/);
    const entry = (await node.mountInfo()).find((mount) => mount.mountPoint === "/mnt/vol");
    assert.ok(entry?.superOptions.includes("size=1m"));
  });
});
