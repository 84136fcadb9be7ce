import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expectErrno } from "../../host-contract.ts";
import { newTestWorld } from "../testing/sim-test-world.ts";

const imageArgs = ["user-pv", "--pool", "sock_shop", "-m", "192.168.22.47:6789", "--id", "admin", "--key=secret"];

async function rbdWorld() {
  const { world, clock } = newTestWorld({ rbdWatcherTimeoutMs: 30_000 });
  world.rbd.createImage("sock_shop", "user-pv", 1024 * 1024 * 1024);
  const nodeA = world.addNode("node-a", { address: "10.16.153.105" });
  const nodeB = world.addNode("node-b", { address: "10.16.153.106" });
  return { world, clock, nodeA, nodeB };
}

describe("rbd", () => {
  it("status prints Watchers: none, then the mapping node's watcher exactly as seed 004 shows", async () => {
    const { nodeA, nodeB } = await rbdWorld();
    assert.deepEqual(await nodeB.run("rbd", ["status", ...imageArgs]), { exitCode: 0, output: "Watchers: none\n" });
    const mapped = await nodeA.run("rbd", ["map", ...imageArgs]);
    assert.deepEqual(mapped, { exitCode: 0, output: "/dev/rbd0\n" });
    assert.equal((await nodeA.stat("/dev/rbd0")).type, "blockDevice");
    const status = await nodeB.run("rbd", ["status", ...imageArgs]);
    assert.equal(status.exitCode, 0);
    assert.match(status.output, /^Watchers:\n\twatcher=10\.16\.153\.105:0\/\d+ client\.\d+ cookie=\d+\n$/);
  });

  it("a live watcher keeps a second node from mapping exclusively; unmap releases it", async () => {
    const { nodeA, nodeB } = await rbdWorld();
    assert.equal((await nodeA.run("rbd", ["map", ...imageArgs])).exitCode, 0);
    const refused = await nodeB.run("rbd", ["map", ...imageArgs, "-o", "exclusive"]);
    assert.deepEqual(refused, {
      exitCode: 16,
      output: "rbd: sysfs write failed\nrbd: map failed: (16) Device or resource busy\n",
    });
    assert.equal((await nodeA.run("rbd", ["unmap", "/dev/rbd0"])).exitCode, 0);
    assert.deepEqual(await nodeB.run("rbd", ["status", ...imageArgs]), { exitCode: 0, output: "Watchers: none\n" });
    assert.equal((await nodeB.run("rbd", ["map", ...imageArgs, "-o", "exclusive"])).exitCode, 0);
  });

  it("a dead node's watcher lingers for the watch timeout", async () => {
    const { nodeA, nodeB, clock } = await rbdWorld();
    assert.equal((await nodeA.run("rbd", ["map", ...imageArgs])).exitCode, 0);
    nodeA.powerOff();
    await clock.advanceBy(29_999);
    assert.match((await nodeB.run("rbd", ["status", ...imageArgs])).output, /watcher=10\.16\.153\.105/);
    await clock.advanceBy(1);
    assert.equal((await nodeB.run("rbd", ["status", ...imageArgs])).output, "Watchers: none\n");
  });

  it("fencing drops the watcher at once, and the fenced node's I/O on the image fails with EIO", async () => {
    const { world, nodeA, nodeB } = await rbdWorld();
    assert.equal((await nodeA.run("rbd", ["map", ...imageArgs])).exitCode, 0);
    assert.equal((await nodeA.run("mkfs.ext4", ["-F", "-m0", "/dev/rbd0"])).exitCode, 0);
    await nodeA.mkdir("/mnt/rbd", 0o755);
    assert.equal((await nodeA.run("mount", ["-t", "ext4", "/dev/rbd0", "/mnt/rbd"])).exitCode, 0);
    world.fenceNode("node-a");
    assert.equal((await nodeB.run("rbd", ["status", ...imageArgs])).output, "Watchers: none\n");
    await expectErrno(nodeA.writeFile("/mnt/rbd/late", "x"), "EIO");
    const refused = await nodeA.run("rbd", ["map", ...imageArgs]);
    assert.equal(refused.exitCode, 108);
  });

  it("fencing a node's storage blocklists its address: also after a reboot, until it is unfenced", async () => {
    const { world, nodeA, nodeB } = await rbdWorld();
    assert.equal((await nodeA.run("rbd", ["map", ...imageArgs])).exitCode, 0);
    world.fenceNodeStorage("node-a");
    assert.equal((await nodeB.run("rbd", ["status", ...imageArgs])).output, "Watchers: none\n");
    nodeA.powerOff();
    nodeA.powerOn();
    assert.equal((await nodeA.run("rbd", ["map", ...imageArgs])).exitCode, 108, "the new client is refused too");
    world.unfenceNodeStorage("node-a");
    assert.equal((await nodeA.run("rbd", ["map", ...imageArgs])).exitCode, 0);
    assert.equal((await nodeB.run("rbd", ["map", ...imageArgs])).exitCode, 0, "node-b was never fenced");
  });

  it("unmapping a mounted device is refused; a missing image fails with ENOENT's status", async () => {
    const { nodeA } = await rbdWorld();
    assert.equal((await nodeA.run("rbd", ["map", ...imageArgs])).exitCode, 0);
    assert.equal((await nodeA.run("mkfs.ext4", ["-F", "/dev/rbd0"])).exitCode, 0);
    await nodeA.mkdir("/mnt/rbd", 0o755);
    assert.equal((await nodeA.run("mount", ["/dev/rbd0", "/mnt/rbd"])).exitCode, 0);
    assert.equal((await nodeA.run("rbd", ["unmap", "/dev/rbd0"])).exitCode, 16);
    const missing = await nodeA.run("rbd", ["status", "nope", "--pool", "sock_shop"]);
    assert.deepEqual(missing, {
      exitCode: 2,
      output: "rbd: error opening image nope: (2) No such file or directory\n",
    });
  });
});
