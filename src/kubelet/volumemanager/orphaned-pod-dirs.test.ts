import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { volumeManagerEnv } from "./testing/volume-manager-env.ts";
import { readText } from "./testing/wait.ts";

const podsDir = "/var/lib/kubelet/pods";

describe("cleanupOrphanedPodDirs", () => {
  it("removes an orphaned pod directory whose volumes are gone, keeping known pods", async () => {
    const env = await volumeManagerEnv();
    await env.host.mkdir(`${podsDir}/gone/volumes/kubernetes.io~empty-dir/tmp`, 0o750, { recursive: true });
    await env.host.mkdir(`${podsDir}/gone/plugins/kubernetes.io~empty-dir/tmp`, 0o750, { recursive: true });
    await env.host.writeFile(`${podsDir}/gone/plugins/kubernetes.io~empty-dir/tmp/ready`, "");
    await env.host.writeFile(`${podsDir}/gone/etc-hosts`, "127.0.0.1 localhost\n");
    await env.host.mkdir(`${podsDir}/known/volumes`, 0o750, { recursive: true });
    assert.deepEqual(await env.manager.cleanupOrphanedPodDirs(new Set(["known"])), []);
    assert.deepEqual(await env.host.readdir(podsDir), ["known"]);
  });

  it("never deletes through a mount: a still-mounted volume keeps its pod directory and data", async () => {
    const env = await volumeManagerEnv();
    const volume = `${podsDir}/gone/volumes/example.com~unknown/data`;
    await env.host.mkdir(volume, 0o750, { recursive: true });
    await env.node.mounter.mount("tmpfs", volume, "tmpfs", []);
    await env.host.writeFile(`${volume}/orders.db`, "order-1");
    assert.equal(await env.manager.podVolumesExist("gone"), true);
    assert.deepEqual(await env.manager.cleanupOrphanedPodDirs(new Set()), []);
    assert.equal(await readText(env, `${volume}/orders.db`), "order-1");
  });

  it("refuses to empty a mounted directory outside volumes/ and says why", async () => {
    const env = await volumeManagerEnv();
    const leaked = `${podsDir}/gone/plugins/example.com~fuse/cache`;
    await env.host.mkdir(leaked, 0o750, { recursive: true });
    await env.node.mounter.mount("tmpfs", leaked, "tmpfs", []);
    await env.host.writeFile(`${leaked}/blob`, "bytes");
    const errors = await env.manager.cleanupOrphanedPodDirs(new Set());
    assert.deepEqual(errors, [
      `orphaned pod "gone" found, but error occurred when trying to remove subdir "${podsDir}/gone/plugins": ` +
        `cannot delete directory ${leaked}: it is a mount point`,
    ]);
    assert.equal(await readText(env, `${leaked}/blob`), "bytes");
  });
});
