import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expectErrno } from "../../host-contract.ts";
import { newTestWorld } from "../testing/sim-test-world.ts";

const podDir = "/var/lib/kubelet/pods/cddc94e7/volumes/kubernetes.io~nfs/nfs211";
const source = "10.20.172.211:/nfs";
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

/** A world with one NFS server exporting /nfs (holding `hello.txt`) and one node with the pod directory. */
async function nfsWorld(nodeOptions: Parameters<ReturnType<typeof newTestWorld>["world"]["addNode"]>[1] = {}) {
  const { world, clock } = newTestWorld();
  const server = world.addNfsServer("10.20.172.211");
  const exportFs = server.addExport("/nfs");
  exportFs.create(
    exportFs.rootIno,
    "hello.txt",
    { type: "file", mode: 0o644, data: new TextEncoder().encode("from the server") },
    "/nfs/hello.txt",
  );
  const node = world.addNode("node1", nodeOptions);
  await node.mkdir(podDir, 0o750, { recursive: true });
  return { world, clock, server, node };
}

/** Tracks whether a promise has settled, to show that an operation is still hanging. */
function track<T>(promise: Promise<T>): { settled: () => boolean; promise: Promise<T> } {
  let done = false;
  const tracked = promise.finally(() => {
    done = true;
  });
  return { settled: () => done, promise: tracked };
}

describe("NFS mounts", () => {
  it("without mount.nfs, mount exits 32 with util-linux 2.23's text (seed 002)", async () => {
    const { node } = await nfsWorld({ withoutCommands: ["mount.nfs", "mount.nfs4"] });
    const result = await node.run("mount", ["-t", "nfs", source, podDir]);
    assert.equal(result.exitCode, 32);
    assert.equal(
      result.output,
      "mount: wrong fs type, bad option, bad superblock on 10.20.172.211:/nfs,\n" +
        "       missing codepage or helper program, or other error\n" +
        "       (for several filesystems (e.g. nfs, cifs) you might\n" +
        "       need a /sbin/mount.<type> helper program)\n" +
        "\n" +
        "       In some cases useful info is found in syslog - try\n" +
        "       dmesg | tail or so.\n",
    );
    assert.equal((await node.mountInfo()).filter((mount) => mount.mountPoint === podDir).length, 0);
  });

  it("through systemd-run the output starts with the scope line, as in the seed's event", async () => {
    const { node } = await nfsWorld({ withoutCommands: ["mount.nfs"] });
    const result = await node.run("systemd-run", [
      `--description=Kubernetes transient mount for ${podDir}`,
      "--scope",
      "--",
      "mount",
      "-t",
      "nfs",
      source,
      podDir,
    ]);
    assert.equal(result.exitCode, 32);
    assert.match(
      result.output,
      /^Running scope as unit run-\d+\.scope\.\nmount: wrong fs type, bad option, bad superblock on 10\.20\.172\.211:\/nfs,\n/,
    );
  });

  it("util-linux 2.38 words the missing helper on one line, target first", async () => {
    const { node } = await nfsWorld({ withoutCommands: ["mount.nfs"], utilLinux: "2.38" });
    const result = await node.run("mount", ["-t", "nfs", source, podDir]);
    assert.equal(result.exitCode, 32);
    assert.equal(
      result.output,
      `mount: ${podDir}: bad option; for several filesystems (e.g. nfs, cifs) you might need a /sbin/mount.<type> helper program.\n` +
        "       dmesg(1) may have more information after failed mount system call.\n",
    );
  });

  it("once nfs-utils is installed the same mount works and the export's files are visible", async () => {
    const { node, world } = await nfsWorld({ withoutCommands: ["mount.nfs"] });
    assert.equal((await node.run("mount", ["-t", "nfs", source, podDir])).exitCode, 32);
    node.installCommand("mount.nfs");
    const result = await node.run("mount", ["-t", "nfs", source, podDir]);
    assert.equal(result.exitCode, 0, result.output);
    assert.equal(text(await node.readFile(`${podDir}/hello.txt`)), "from the server");
    const entry = (await node.mountInfo()).find((mount) => mount.mountPoint === podDir);
    assert.equal(entry?.source, source);
    assert.equal(entry?.fsType, "nfs4");
    assert.ok(entry?.superOptions.includes("addr=10.20.172.211"));

    const other = world.addNode("node2");
    await other.mkdir("/mnt/shared", 0o755, { recursive: true });
    assert.equal((await other.run("mount", ["-t", "nfs", "-o", "vers=3", source, "/mnt/shared"])).exitCode, 0);
    await node.writeFile(`${podDir}/written-on-node1`, "shared bytes");
    assert.equal(text(await other.readFile("/mnt/shared/written-on-node1")), "shared bytes");
    assert.equal((await other.mountInfo()).find((mount) => mount.mountPoint === "/mnt/shared")?.fsType, "nfs");
  });

  it("an unknown export is refused by the server", async () => {
    const { node } = await nfsWorld();
    const result = await node.run("mount", ["-t", "nfs", "10.20.172.211:/nope", podDir]);
    assert.equal(result.exitCode, 32);
    assert.equal(result.output, "mount.nfs: access denied by server while mounting 10.20.172.211:/nope\n");
  });

  it("with the server down the mount hangs until it is back, while other work on the node goes on", async () => {
    const { node, server, clock } = await nfsWorld();
    server.setReachable(false);
    const mount = track(node.run("mount", ["-t", "nfs", source, podDir]));
    await clock.advanceBy(30_000);
    assert.equal(mount.settled(), false, "the mount is still waiting for the server");
    await node.mkdir("/tmp/unrelated", 0o755);
    assert.equal((await node.run("mount", ["-t", "tmpfs", "tmpfs", "/tmp/unrelated"])).exitCode, 0);
    server.setReachable(true);
    const result = await mount.promise;
    assert.equal(result.exitCode, 0, result.output);
    assert.equal(text(await node.readFile(`${podDir}/hello.txt`)), "from the server");
  });

  it("mount.nfs gives up after retry=2 minutes with Connection timed out", async () => {
    const { node, server, clock } = await nfsWorld();
    server.setReachable(false);
    const mount = track(node.run("mount", ["-t", "nfs", source, podDir]));
    await clock.advanceBy(119_999);
    assert.equal(mount.settled(), false);
    await clock.advanceBy(1);
    const result = await mount.promise;
    assert.deepEqual(result, { exitCode: 32, output: "mount.nfs: Connection timed out\n" });
  });

  it("a run deadline kills the hung mount with ETIMEDOUT, and nothing is mounted when the server returns", async () => {
    const { node, server, clock } = await nfsWorld();
    server.setReachable(false);
    const mount = node.run("mount", ["-t", "nfs", source, podDir], { timeoutMs: 10_000 });
    const assertion = expectErrno(mount, "ETIMEDOUT");
    await clock.advanceBy(10_000);
    await assertion;
    server.setReachable(true);
    await clock.runUntilIdle();
    assert.equal(
      (await node.mountInfo()).some((entry) => entry.mountPoint === podDir),
      false,
    );
  });

  it("a hard mount makes stat wait while the server is down; umount hangs too; umount -f aborts both", async () => {
    const { node, server, clock } = await nfsWorld();
    assert.equal((await node.run("mount", ["-t", "nfs", source, podDir])).exitCode, 0);
    server.setReachable(false);
    const stat = track(node.stat(`${podDir}/hello.txt`));
    const umount = track(node.run("umount", [podDir]));
    await clock.advanceBy(60_000);
    assert.equal(stat.settled(), false);
    assert.equal(umount.settled(), false);
    assert.equal((await node.stat("/var/lib/kubelet")).type, "directory", "paths outside the mount still answer");
    const statAborted = expectErrno(stat.promise, "EIO");
    const forced = await node.run("umount", ["-f", podDir]);
    assert.equal(forced.exitCode, 0, forced.output);
    await statAborted;
    assert.equal(
      (await node.mountInfo()).some((entry) => entry.mountPoint === podDir),
      false,
    );
    server.setReachable(true);
    const late = await umount.promise;
    assert.equal(late.exitCode, 32, "the plain umount finds nothing left to unmount");
  });

  it("a stale export fails existing mounts with ESTALE; a fresh mount works", async () => {
    const { node, world } = await nfsWorld();
    assert.equal((await node.run("mount", ["-t", "nfs", source, podDir])).exitCode, 0);
    world.makeNfsStale("10.20.172.211", "/nfs");
    await expectErrno(node.stat(`${podDir}/hello.txt`), "ESTALE");
    await expectErrno(node.stat(podDir), "ESTALE");
    assert.ok(
      (await node.mountInfo()).some((entry) => entry.mountPoint === podDir),
      "the stale mount is still listed",
    );
    assert.equal((await node.run("umount", [podDir])).exitCode, 0);
    assert.equal((await node.run("mount", ["-t", "nfs", source, podDir])).exitCode, 0);
    assert.equal(text(await node.readFile(`${podDir}/hello.txt`)), "from the server");
  });
});
