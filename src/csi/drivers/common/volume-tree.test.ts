import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expectErrno } from "../../../host/host-contract.ts";
import { newTestWorld } from "../../../host/sim/testing/sim-test-world.ts";
import { removeTree, treeUsage } from "./volume-tree.ts";

async function volumeWithFiles() {
  const { world } = newTestWorld();
  const host = world.addNode("node-a");
  await host.mkdir("/vol/a/b", 0o755, { recursive: true });
  await host.writeFile("/vol/top.txt", "12345");
  await host.writeFile("/vol/a/b/deep.txt", "123");
  await host.symlink("/etc", "/vol/link");
  return host;
}

describe("volume tree walks", () => {
  it("treeUsage counts file bytes and every entry, without following links", async () => {
    const host = await volumeWithFiles();
    assert.deepEqual(await treeUsage(host, "/vol", 100), { usedBytes: 8, inodes: 6 });
  });

  it("removeTree deletes everything below and the root itself", async () => {
    const host = await volumeWithFiles();
    await removeTree(host, "/vol", 100);
    await expectErrno(host.lstat("/vol"), "ENOENT");
  });

  it("removeTree refuses to empty another filesystem mounted inside, and touches nothing", async () => {
    const host = await volumeWithFiles();
    await host.mkdir("/vol/mnt", 0o755);
    assert.equal((await host.run("mount", ["-t", "tmpfs", "tmpfs", "/vol/mnt"])).exitCode, 0);
    await host.writeFile("/vol/mnt/precious", "keep");
    await assert.rejects(removeTree(host, "/vol", 100), /\/vol\/mnt is a mount point inside \/vol; unmount it/);
    assert.equal((await host.stat("/vol/mnt/precious")).size, 4);
    assert.equal((await host.stat("/vol/top.txt")).size, 5);
  });

  it("a walk stops at its bound instead of running on", async () => {
    const host = await volumeWithFiles();
    await assert.rejects(treeUsage(host, "/vol", 3), /holds more than 3 entries/);
  });
});
