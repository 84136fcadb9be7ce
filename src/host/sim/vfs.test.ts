import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expectErrno } from "../host-contract.ts";
import { newTestWorld } from "./testing/sim-test-world.ts";

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

function node() {
  return newTestWorld().world.addNode("node-a");
}

describe("simulated kernel: paths across mounts", () => {
  it("a write under a mount point lands in the mounted filesystem, hidden once it is unmounted", async () => {
    const host = node();
    await host.writeFile("/mnt/underneath", "root fs");
    assert.equal((await host.run("mount", ["-t", "tmpfs", "tmpfs", "/mnt"])).exitCode, 0);
    await expectErrno(host.stat("/mnt/underneath"), "ENOENT");
    await host.writeFile("/mnt/on-tmpfs", "tmpfs");
    assert.equal((await host.run("umount", ["/mnt"])).exitCode, 0);
    assert.deepEqual(await host.readdir("/mnt"), ["underneath"]);
  });

  it("a trailing slash, a doubled slash, `.` and `..` name the same file as the plain path", async () => {
    const host = node();
    await host.mkdir("/srv/data", 0o755, { recursive: true });
    await host.mkdir("/srv/other", 0o755);
    await host.writeFile("/srv/data/file", "bytes");
    for (const spelling of ["/srv/data/", "/srv//data", "/srv/./data", "/srv/other/../data", "/srv/data/."]) {
      assert.deepEqual(await host.readdir(spelling), ["file"], spelling);
    }
    assert.equal(text(await host.readFile("//srv/data//file")), "bytes");
    await expectErrno(host.stat("/srv/missing/"), "ENOENT");
  });

  it("mounts stack: the newest hides the older until it is unmounted", async () => {
    const host = node();
    assert.equal((await host.run("mount", ["-t", "tmpfs", "first", "/mnt"])).exitCode, 0);
    await host.writeFile("/mnt/first", "1");
    assert.equal((await host.run("mount", ["-t", "tmpfs", "second", "/mnt"])).exitCode, 0);
    assert.deepEqual(await host.readdir("/mnt"), []);
    const entries = (await host.mountInfo()).filter((mount) => mount.mountPoint === "/mnt");
    assert.deepEqual(
      entries.map((mount) => mount.source),
      ["first", "second"],
    );
    assert.equal(entries[1]?.parentId, entries[0]?.id);
    assert.equal((await host.run("umount", ["/mnt"])).exitCode, 0);
    assert.deepEqual(await host.readdir("/mnt"), ["first"]);
  });

  it("a mount point cannot be renamed or unlinked, and a directory cannot move into itself", async () => {
    const host = node();
    await host.mkdir("/mnt/dir", 0o755);
    assert.equal((await host.run("mount", ["-t", "tmpfs", "tmpfs", "/mnt/dir"])).exitCode, 0);
    await expectErrno(host.rename("/mnt/dir", "/mnt/moved"), "EBUSY");
    await host.writeFile("/mnt/file", "");
    await host.writeFile("/mnt/source-file", "bound");
    assert.equal((await host.run("mount", ["--bind", "/mnt/source-file", "/mnt/file"])).exitCode, 0);
    assert.equal(text(await host.readFile("/mnt/file")), "bound");
    await expectErrno(host.unlink("/mnt/file"), "EBUSY");
    await host.mkdir("/opt/a/b", 0o755, { recursive: true });
    await expectErrno(host.rename("/opt/a", "/opt/a/b/c"), "EINVAL");
  });

  it("a bind mount of a subdirectory shows its path inside the filesystem as the mountinfo root", async () => {
    const host = node();
    await host.mkdir("/var/lib/data/sub", 0o755, { recursive: true });
    assert.equal((await host.run("mount", ["--bind", "/var/lib/data/sub", "/mnt"])).exitCode, 0);
    const entry = (await host.mountInfo()).find((mount) => mount.mountPoint === "/mnt");
    assert.equal(entry?.root, "/var/lib/data/sub");
    assert.equal(entry?.fsType, "ext4");
    assert.equal((await host.stat("/mnt")).dev, (await host.stat("/var")).dev, "same filesystem, same st_dev");
  });

  it("binding a directory onto a file fails as a mount(8) error, not as a crash", async () => {
    const host = node();
    await host.writeFile("/opt/file", "");
    const result = await host.run("mount", ["--bind", "/etc", "/opt/file"]);
    assert.deepEqual(result, { exitCode: 32, output: "mount: /opt/file: Not a directory\n" });
  });

  it("--rbind carries the mounts below the source along", async () => {
    const host = node();
    await host.mkdir("/opt/tree/inner", 0o755, { recursive: true });
    assert.equal((await host.run("mount", ["-t", "tmpfs", "tmpfs", "/opt/tree/inner"])).exitCode, 0);
    await host.writeFile("/opt/tree/inner/x", "on the submount");
    assert.equal((await host.run("mount", ["--rbind", "/opt/tree", "/mnt"])).exitCode, 0);
    assert.equal(text(await host.readFile("/mnt/inner/x")), "on the submount");
    assert.equal((await host.run("umount", ["-l", "/mnt"])).exitCode, 0);
    assert.equal(
      (await host.mountInfo()).some((mount) => mount.mountPoint.startsWith("/mnt")),
      false,
    );
  });

  it("a block device bind-mounted onto a file can carry a loop device, as block-mode volumes do", async () => {
    const { world, clock } = newTestWorld();
    const host = world.addNode("node-a");
    world.disks.createDisk("disk-1", 1024 * 1024 * 1024);
    const attached = world.disks.attach("disk-1", "node-a");
    await clock.runUntilIdle();
    await attached;
    const mapPath = "/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/pv-1/dev/uid-1";
    await host.mkdir("/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/pv-1/dev", 0o750, { recursive: true });
    await host.writeFile(mapPath, "");
    assert.equal((await host.run("mount", ["-o", "bind", "/dev/disk/by-id/virtio-disk-1", mapPath])).exitCode, 0);
    assert.equal((await host.stat(mapPath)).type, "blockDevice");
    const loop = await host.run("losetup", ["-f", "--show", mapPath]);
    assert.equal(loop.exitCode, 0, loop.output);
    assert.equal((await host.run("mkfs.ext4", ["-F", loop.output.trim()])).exitCode, 0);
    assert.match((await host.run("blkid", ["-p", "-s", "TYPE", "-o", "export", "/dev/sdb"])).output, /TYPE=ext4/);
  });

  it("the same world and seed give the same node: identical scope numbers and watcher addresses", async () => {
    const outputs = [];
    for (let run = 0; run < 2; run++) {
      const { world } = newTestWorld();
      world.rbd.createImage("rbd", "img", 1024 * 1024);
      const host = world.addNode("node-a");
      const scope = await host.run("systemd-run", ["--scope", "--", "true"]);
      await host.run("rbd", ["map", "img"]);
      const status = await host.run("rbd", ["status", "img"]);
      outputs.push(`${scope.output}${status.output}`);
    }
    assert.equal(outputs[0], outputs[1]);
  });
});

describe("simulated kernel: truncating a file on a tmpfs with size=", () => {
  it("gives the cut bytes back: usage returns to where it was and the space can be written again", async () => {
    const host = node();
    await host.mkdir("/mnt/vol", 0o755, { recursive: true });
    assert.equal((await host.run("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", "/mnt/vol"])).exitCode, 0);
    const emptyUsage = (await host.statfs("/mnt/vol")).usedBytes;
    for (let round = 0; round < 5; round++) {
      await host.writeFile("/mnt/vol/log", new Uint8Array(600 * 1024));
      assert.equal((await host.run("truncate", ["-s", "100", "/mnt/vol/log"])).exitCode, 0);
      assert.equal((await host.statfs("/mnt/vol")).usedBytes, emptyUsage + 100);
      await host.writeFile("/mnt/vol/data", new Uint8Array(600 * 1024));
      await host.createSparseFile("/mnt/vol/data", 0);
      assert.equal((await host.statfs("/mnt/vol")).usedBytes, emptyUsage + 100);
    }
    await host.createSparseFile("/mnt/vol/log", 0);
    assert.equal((await host.statfs("/mnt/vol")).usedBytes, emptyUsage);
  });
});
