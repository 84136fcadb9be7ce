import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newTestWorld } from "../testing/sim-test-world.ts";

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

/** A configMap-like volume: `key` → `..data/key`, `..data` → `..v1`. */
async function atomicVolume() {
  const { world } = newTestWorld();
  const node = world.addNode("node-a");
  await node.mkdir("/vol/..v1", 0o755, { recursive: true });
  await node.writeFile("/vol/..v1/key", "one");
  await node.symlink("..v1", "/vol/..data");
  await node.symlink("..data/key", "/vol/key");
  await node.mkdir("/binds", 0o755);
  await node.writeFile("/binds/0", "");
  return node;
}

describe("mount --bind holds what the source named when it was mounted", () => {
  it("a bound file outlives its name: a swap of ..data and the old directory's removal do not reach it", async () => {
    const node = await atomicVolume();
    assert.equal((await node.run("mount", ["--bind", "/vol/key", "/binds/0"])).exitCode, 0);

    await node.mkdir("/vol/..v2", 0o755);
    await node.writeFile("/vol/..v2/key", "two");
    await node.symlink("..v2", "/vol/..data_tmp");
    await node.rename("/vol/..data_tmp", "/vol/..data");
    await node.unlink("/vol/..v1/key");
    await node.rmdir("/vol/..v1");

    assert.equal(text(await node.readFile("/vol/key")), "two", "the path names the new file");
    assert.equal(text(await node.readFile("/binds/0")), "one", "the bind still shows the old one");
    const entry = (await node.mountInfo()).find((mount) => mount.mountPoint === "/binds/0");
    assert.equal(entry?.root, "/vol/..v1/key//deleted", "as /proc/self/mountinfo shows an unlinked root");

    assert.equal((await node.run("umount", ["/binds/0"])).exitCode, 0);
    assert.equal(text(await node.readFile("/binds/0")), "", "the plain file under the bind again");
  });

  it("a bound file that keeps its name is the same file through both paths", async () => {
    const node = await atomicVolume();
    assert.equal((await node.run("mount", ["--bind", "/vol/key", "/binds/0"])).exitCode, 0);
    await node.writeFile("/vol/key", "edited in place");
    assert.equal(text(await node.readFile("/binds/0")), "edited in place");
    assert.deepEqual(
      [(await node.stat("/binds/0")).ino, (await node.stat("/binds/0")).dev],
      [(await node.stat("/vol/..v1/key")).ino, (await node.stat("/vol/..v1/key")).dev],
    );
  });
});
