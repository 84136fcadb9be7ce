/**
 * The Host contract: one suite that every Host implementation runs, so the simulator and a real
 * Linux node agree on what plugins and the kubelet can observe — file semantics and errnos, the
 * mount table after `mount`/`umount`, st_dev across a mount, and daemon scopes.
 *
 * Usage (in a *.test.ts file):
 *   describeHostContract("SimHost", async () => ({ host, root: "/contract", cleanup: async () => {} }), caps);
 * Each test gets a fresh `makeHost()`; everything happens under `root`, an empty directory. The FUSE
 * cases live in host-contract-fuse.ts.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { type Errno, type Host, isHostError } from "./host.ts";
import { describeFuse } from "./host-contract-fuse.ts";

export interface HostUnderTest {
  host: Host;
  /** An existing empty directory the suite may use. */
  root: string;
  cleanup(): Promise<void>;
  /**
   * Waits a moment between two looks at something a real kernel does asynchronously (a FUSE daemon
   * mounting, or exiting after its unmount). The simulator does those at once; it passes a no-op.
   */
  pause(): Promise<void>;
  /**
   * Starts a process on the node with its working directory at `path` (a shell left in a volume),
   * named by the command line mountHolders should report; absent where the host cannot.
   */
  holdMount?(path: string): Promise<HeldMount>;
}

export interface HeldMount {
  pid: number;
  /** The command line mountHolders reports for it. */
  command: string;
  /** Ends the process. */
  release(): Promise<void>;
}

interface HostCapabilities {
  /** `mount -t tmpfs` works. */
  tmpfs: boolean;
  /** `mount --bind` works. */
  bind: boolean;
  /** `losetup` works. */
  loop: boolean;
  /** startDaemon / killProcess work, and scopes are reported. */
  daemons: boolean;
  /** bindfs can be started as a daemon and serve a directory through FUSE. */
  fuse: boolean;
  /** A long-running command startDaemon can start (`sleep` on Linux, any installed binary on the simulator). */
  daemonCommand?: { command: string; args: string[] };
}

export async function expectErrno(action: Promise<unknown>, code: Errno): Promise<void> {
  await assert.rejects(action, (error: unknown) => {
    assert.ok(isHostError(error), `expected a HostError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, `expected ${code}, got ${error.code}: ${error.message}`);
    return true;
  });
}

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

export function describeHostContract(
  name: string,
  makeHost: () => Promise<HostUnderTest>,
  capabilities: HostCapabilities,
): void {
  describe(`Host contract: ${name}`, () => {
    let subject: HostUnderTest;
    let host: Host;
    let root: string;

    beforeEach(async () => {
      subject = await makeHost();
      host = subject.host;
      root = subject.root;
    });
    afterEach(async () => {
      await subject.cleanup();
    });

    describeFiles(() => ({ host, root }));
    describeMounts(() => ({ host, root }), capabilities);
    if (capabilities.daemons) describeDaemons(() => ({ host }), capabilities);
    if (capabilities.tmpfs) describeMountHolders(() => subject);
    if (capabilities.fuse) describeFuse(() => subject);
  });
}

function describeFiles(get: () => { host: Host; root: string }): void {
  describe("files", () => {
    it("writes, reads, stats and lists files", async () => {
      const { host, root } = get();
      await host.writeFile(`${root}/a.txt`, "hello", 0o600);
      assert.equal(text(await host.readFile(`${root}/a.txt`)), "hello");
      const stat = await host.stat(`${root}/a.txt`);
      assert.equal(stat.type, "file");
      assert.equal(stat.size, 5);
      assert.equal(stat.mode, 0o600);
      assert.deepEqual(await host.readdir(root), ["a.txt"]);
      await host.writeFile(`${root}/a.txt`, "hi");
      assert.equal(text(await host.readFile(`${root}/a.txt`)), "hi");
    });

    it("reports ENOENT, ENOTDIR, EISDIR and EEXIST where the kernel does", async () => {
      const { host, root } = get();
      await expectErrno(host.stat(`${root}/missing`), "ENOENT");
      await expectErrno(host.readFile(`${root}/missing`), "ENOENT");
      await host.writeFile(`${root}/file`, "x");
      await expectErrno(host.stat(`${root}/file/child`), "ENOTDIR");
      await expectErrno(host.readdir(`${root}/file`), "ENOTDIR");
      await host.mkdir(`${root}/dir`, 0o755);
      await expectErrno(host.readFile(`${root}/dir`), "EISDIR");
      await expectErrno(host.mkdir(`${root}/dir`, 0o755), "EEXIST");
      await expectErrno(host.mkdir(`${root}/no/such/parent`, 0o755), "ENOENT");
      await expectErrno(host.writeFile(`${root}/dir`, "x"), "EISDIR");
      await expectErrno(host.writeFile(`${root}/no/such/file`, "x"), "ENOENT");
    });

    it("mkdir -p creates every missing directory with the mode given, and accepts an existing one", async () => {
      const { host, root } = get();
      await host.mkdir(`${root}/x/y/z`, 0o750, { recursive: true });
      assert.equal((await host.stat(`${root}/x/y/z`)).mode, 0o750);
      assert.equal((await host.stat(`${root}/x`)).type, "directory");
      await host.mkdir(`${root}/x/y/z`, 0o750, { recursive: true });
      await host.writeFile(`${root}/f`, "");
      await expectErrno(host.mkdir(`${root}/f/sub`, 0o755, { recursive: true }), "ENOTDIR");
    });

    it("copyTree copies a directory with its files, subdirectories, symlinks, modes and sparse sizes", async () => {
      const { host, root } = get();
      await host.mkdir(`${root}/vol`, 0o750);
      await host.writeFile(`${root}/vol/data.txt`, "the bytes", 0o640);
      await host.mkdir(`${root}/vol/sub`, 0o700);
      await host.writeFile(`${root}/vol/sub/deep.txt`, "deeper");
      await host.symlink("data.txt", `${root}/vol/link`);
      await host.createSparseFile(`${root}/vol/disk.img`, 8 * 1024 * 1024);
      await host.copyTree(`${root}/vol`, `${root}/copy`);
      assert.deepEqual((await host.readdir(`${root}/copy`)).sort(), ["data.txt", "disk.img", "link", "sub"]);
      assert.equal(text(await host.readFile(`${root}/copy/data.txt`)), "the bytes");
      assert.equal((await host.stat(`${root}/copy/data.txt`)).mode, 0o640);
      assert.equal((await host.stat(`${root}/copy`)).mode, 0o750);
      assert.equal((await host.stat(`${root}/copy/sub`)).mode, 0o700);
      assert.equal(text(await host.readFile(`${root}/copy/sub/deep.txt`)), "deeper");
      assert.equal(await host.readlink(`${root}/copy/link`), "data.txt");
      assert.equal((await host.stat(`${root}/copy/disk.img`)).size, 8 * 1024 * 1024);
      // The copy is independent of its source afterwards.
      await host.writeFile(`${root}/vol/data.txt`, "changed");
      assert.equal(text(await host.readFile(`${root}/copy/data.txt`)), "the bytes");
    });

    it("copyTree copies a single file, and refuses an existing target or a missing source or parent", async () => {
      const { host, root } = get();
      await host.writeFile(`${root}/one`, "1", 0o600);
      await host.copyTree(`${root}/one`, `${root}/two`);
      assert.equal(text(await host.readFile(`${root}/two`)), "1");
      assert.equal((await host.stat(`${root}/two`)).mode, 0o600);
      await expectErrno(host.copyTree(`${root}/one`, `${root}/two`), "EEXIST");
      await expectErrno(host.copyTree(`${root}/missing`, `${root}/three`), "ENOENT");
      await expectErrno(host.copyTree(`${root}/one`, `${root}/no/such/dir`), "ENOENT");
      assert.equal(text(await host.readFile(`${root}/two`)), "1");
    });

    it("chmod sets the permission bits regardless of umask", async () => {
      const { host, root } = get();
      await host.mkdir(`${root}/d`, 0o700);
      await host.chmod(`${root}/d`, 0o777);
      assert.equal((await host.stat(`${root}/d`)).mode, 0o777);
    });

    it("renames files and directories, replacing a file or an empty directory", async () => {
      const { host, root } = get();
      await host.writeFile(`${root}/old`, "data");
      await host.writeFile(`${root}/victim`, "gone");
      await host.rename(`${root}/old`, `${root}/victim`);
      assert.equal(text(await host.readFile(`${root}/victim`)), "data");
      await expectErrno(host.stat(`${root}/old`), "ENOENT");
      await host.mkdir(`${root}/d1`, 0o755);
      await host.writeFile(`${root}/d1/inside`, "1");
      await host.mkdir(`${root}/d2`, 0o755);
      await host.rename(`${root}/d1`, `${root}/d2`);
      assert.deepEqual(await host.readdir(`${root}/d2`), ["inside"]);
      await host.mkdir(`${root}/full`, 0o755);
      await host.writeFile(`${root}/full/x`, "");
      await expectErrno(host.rename(`${root}/d2`, `${root}/full`), "ENOTEMPTY");
      await expectErrno(host.rename(`${root}/d2`, `${root}/d2/inside/deeper`), "ENOTDIR");
      await expectErrno(host.rename(`${root}/missing`, `${root}/x`), "ENOENT");
      await host.mkdir(`${root}/d2/sub`, 0o755);
      await expectErrno(host.rename(`${root}/d2`, `${root}/d2/sub/moved`), "EINVAL");
    });

    it("creates, reads and follows symlinks, and detects loops", async () => {
      const { host, root } = get();
      await host.mkdir(`${root}/target`, 0o755);
      await host.writeFile(`${root}/target/file`, "via link");
      await host.symlink(`${root}/target`, `${root}/abs`);
      await host.symlink("target", `${root}/rel`);
      assert.equal(await host.readlink(`${root}/abs`), `${root}/target`);
      assert.equal(text(await host.readFile(`${root}/rel/file`)), "via link");
      assert.equal((await host.lstat(`${root}/abs`)).type, "symlink");
      assert.equal((await host.stat(`${root}/abs`)).type, "directory");
      await expectErrno(host.readlink(`${root}/target`), "EINVAL");
      await expectErrno(host.symlink("x", `${root}/abs`), "EEXIST");
      await host.symlink(`${root}/loop-b`, `${root}/loop-a`);
      await host.symlink(`${root}/loop-a`, `${root}/loop-b`);
      await expectErrno(host.stat(`${root}/loop-a`), "ELOOP");
      await host.symlink(`${root}/nowhere`, `${root}/dangling`);
      await expectErrno(host.stat(`${root}/dangling`), "ENOENT");
      assert.equal((await host.lstat(`${root}/dangling`)).type, "symlink");
    });

    it("unlinks files and removes only empty directories", async () => {
      const { host, root } = get();
      await host.mkdir(`${root}/d`, 0o755);
      await host.writeFile(`${root}/d/f`, "");
      await expectErrno(host.rmdir(`${root}/d`), "ENOTEMPTY");
      await expectErrno(host.unlink(`${root}/d`), "EISDIR");
      await expectErrno(host.rmdir(`${root}/d/f`), "ENOTDIR");
      await host.unlink(`${root}/d/f`);
      await host.rmdir(`${root}/d`);
      await expectErrno(host.stat(`${root}/d`), "ENOENT");
      await expectErrno(host.unlink(`${root}/d`), "ENOENT");
      await expectErrno(host.rmdir(`${root}/d`), "ENOENT");
    });

    it("creates a sparse file of the requested size", async () => {
      const { host, root } = get();
      await host.createSparseFile(`${root}/disk.img`, 1024 * 1024);
      assert.equal((await host.stat(`${root}/disk.img`)).size, 1024 * 1024);
    });

    it("resizing an existing file with createSparseFile keeps its bytes", async () => {
      const { host, root } = get();
      await host.writeFile(`${root}/disk.img`, "header");
      await host.createSparseFile(`${root}/disk.img`, 2 * 1024 * 1024);
      assert.equal((await host.stat(`${root}/disk.img`)).size, 2 * 1024 * 1024);
      assert.equal(text((await host.readFile(`${root}/disk.img`)).subarray(0, 6)), "header");
    });
  });
}

function describeMounts(get: () => { host: Host; root: string }, capabilities: HostCapabilities): void {
  describe("mounts", () => {
    it("umount of a directory that is not mounted fails with exit status 32 and says so", async () => {
      const { host, root } = get();
      await host.mkdir(`${root}/plain`, 0o755);
      const result = await host.run("umount", [`${root}/plain`]);
      assert.equal(result.exitCode, 32);
      assert.match(result.output, /not mounted/);
    });

    it("a command that is not installed exits 127", async () => {
      const { host } = get();
      assert.equal(await host.hasCommand("kvol-no-such-binary"), false);
      const result = await host.run("kvol-no-such-binary", []);
      assert.equal(result.exitCode, 127);
    });

    if (capabilities.tmpfs) {
      it("mounts a tmpfs: listed in mountinfo, its own st_dev, data visible, and gone after umount", async () => {
        const { host, root } = get();
        const dir = `${root}/tmp`;
        await host.mkdir(dir, 0o755);
        const parentDev = (await host.stat(root)).dev;
        const mounted = await host.run("mount", ["-t", "tmpfs", "tmpfs", dir]);
        assert.equal(mounted.exitCode, 0, mounted.output);
        const entry = (await host.mountInfo()).find((mount) => mount.mountPoint === dir);
        assert.ok(entry, `no mountinfo entry for ${dir}`);
        assert.equal(entry.fsType, "tmpfs");
        assert.equal(entry.source, "tmpfs");
        assert.notEqual((await host.stat(dir)).dev, parentDev);
        assert.equal((await host.lstat(dir)).dev, (await host.stat(dir)).dev, "lstat crosses into the mount too");
        await host.writeFile(`${dir}/data`, "in memory");
        assert.equal(text(await host.readFile(`${dir}/data`)), "in memory");
        await expectErrno(host.rmdir(dir), "EBUSY");
        const unmounted = await host.run("umount", [dir]);
        assert.equal(unmounted.exitCode, 0, unmounted.output);
        assert.equal(
          (await host.mountInfo()).find((mount) => mount.mountPoint === dir),
          undefined,
        );
        assert.equal((await host.stat(dir)).dev, parentDev);
        await expectErrno(host.stat(`${dir}/data`), "ENOENT");
        await host.rmdir(dir);
      });

      it("statfs of a tmpfs: its size, and one more inode in use for each file or directory created", async () => {
        const { host, root } = get();
        const dir = `${root}/space`;
        await host.mkdir(dir, 0o755);
        assert.equal((await host.run("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", dir])).exitCode, 0);
        try {
          const before = await host.statfs(dir);
          assert.equal(before.totalBytes, 4 * 1024 * 1024);
          assert.ok(before.inodes > 0 && before.inodesFree < before.inodes, JSON.stringify(before));
          await host.writeFile(`${dir}/a`, "x".repeat(8192));
          await host.mkdir(`${dir}/b`, 0o755);
          const after = await host.statfs(dir);
          assert.equal(after.inodes, before.inodes);
          assert.equal(after.inodesFree, before.inodesFree - 2);
          assert.ok(after.usedBytes >= before.usedBytes + 8192, `${before.usedBytes} → ${after.usedBytes}`);
          assert.equal(after.freeBytes, after.totalBytes - after.usedBytes, "tmpfs reserves no blocks for root");
        } finally {
          await host.run("umount", [dir]);
        }
      });

      it("rename across a mount boundary fails with EXDEV", async () => {
        const { host, root } = get();
        await host.mkdir(`${root}/m`, 0o755);
        assert.equal((await host.run("mount", ["-t", "tmpfs", "tmpfs", `${root}/m`])).exitCode, 0);
        try {
          await host.writeFile(`${root}/outside`, "x");
          await expectErrno(host.rename(`${root}/outside`, `${root}/m/inside`), "EXDEV");
        } finally {
          await host.run("umount", [`${root}/m`]);
        }
      });

      it("umount of a mount with a mount below it fails with target is busy", async () => {
        const { host, root } = get();
        await host.mkdir(`${root}/outer`, 0o755);
        assert.equal((await host.run("mount", ["-t", "tmpfs", "tmpfs", `${root}/outer`])).exitCode, 0);
        await host.mkdir(`${root}/outer/inner`, 0o755);
        assert.equal((await host.run("mount", ["-t", "tmpfs", "tmpfs", `${root}/outer/inner`])).exitCode, 0);
        const busy = await host.run("umount", [`${root}/outer`]);
        assert.equal(busy.exitCode, 32);
        assert.match(busy.output, /target is busy/);
        assert.equal((await host.run("umount", [`${root}/outer/inner`])).exitCode, 0);
        assert.equal((await host.run("umount", [`${root}/outer`])).exitCode, 0);
      });
    }

    if (capabilities.tmpfs) {
      it("mount on a missing directory fails with exit status 32 and says the mount point does not exist", async () => {
        const { host, root } = get();
        const result = await host.run("mount", ["-t", "tmpfs", "tmpfs", `${root}/absent`]);
        assert.equal(result.exitCode, 32);
        assert.match(result.output, /does not exist/);
      });

      it("mounts stack: a second mount on the same directory hides the first until it is unmounted", async () => {
        const { host, root } = get();
        const dir = `${root}/stack`;
        await host.mkdir(dir, 0o755);
        assert.equal((await host.run("mount", ["-t", "tmpfs", "lower", dir])).exitCode, 0);
        await host.writeFile(`${dir}/lower-file`, "1");
        assert.equal((await host.run("mount", ["-t", "tmpfs", "upper", dir])).exitCode, 0);
        assert.deepEqual(await host.readdir(dir), []);
        const stacked = (await host.mountInfo()).filter((mount) => mount.mountPoint === dir);
        assert.deepEqual(
          stacked.map((mount) => mount.source),
          ["lower", "upper"],
        );
        const [lower, upper] = stacked;
        assert.equal(await host.mountIdAt(dir), upper?.id, "the top mount serves the mount point");
        assert.equal(await host.mountIdAt(`${dir}/deeper/file`), upper?.id, "and every path under it");
        assert.notEqual(
          await host.mountIdAt(`${dir}-sibling`),
          upper?.id,
          "a name that only starts alike is not under it",
        );
        assert.equal((await host.run("umount", [dir])).exitCode, 0);
        assert.equal(
          await host.mountIdAt(`${dir}/lower-file`),
          lower?.id,
          "unmounting the top uncovers the lower mount",
        );
        assert.deepEqual(await host.readdir(dir), ["lower-file"]);
        assert.equal((await host.run("umount", [dir])).exitCode, 0);
      });
    }

    if (capabilities.bind) {
      it("a file can be bind-mounted onto a file, which then cannot be unlinked", async () => {
        const { host, root } = get();
        await host.writeFile(`${root}/source-file`, "bound content");
        await host.writeFile(`${root}/target-file`, "");
        assert.equal((await host.run("mount", ["--bind", `${root}/source-file`, `${root}/target-file`])).exitCode, 0);
        try {
          assert.equal(text(await host.readFile(`${root}/target-file`)), "bound content");
          await expectErrno(host.unlink(`${root}/target-file`), "EBUSY");
        } finally {
          await host.run("umount", [`${root}/target-file`]);
        }
        assert.equal(text(await host.readFile(`${root}/target-file`)), "");
      });

      it("a bind mount shows the same content both ways and keeps writes after umount", async () => {
        const { host, root } = get();
        await host.mkdir(`${root}/src`, 0o755);
        await host.mkdir(`${root}/dst`, 0o755);
        await host.writeFile(`${root}/src/from-source`, "1");
        const bound = await host.run("mount", ["--bind", `${root}/src`, `${root}/dst`]);
        assert.equal(bound.exitCode, 0, bound.output);
        assert.deepEqual(await host.readdir(`${root}/dst`), ["from-source"]);
        await host.writeFile(`${root}/dst/from-target`, "2");
        assert.equal(text(await host.readFile(`${root}/src/from-target`)), "2");
        const entry = (await host.mountInfo()).find((mount) => mount.mountPoint === `${root}/dst`);
        assert.ok(entry, "the bind mount is listed");
        await expectErrno(host.rmdir(`${root}/dst`), "EBUSY");
        assert.equal((await host.run("umount", [`${root}/dst`])).exitCode, 0);
        assert.deepEqual(await host.readdir(`${root}/dst`), []);
        assert.deepEqual((await host.readdir(`${root}/src`)).sort(), ["from-source", "from-target"]);
      });

      it("a read-only bind mount refuses writes with EROFS", async () => {
        const { host, root } = get();
        await host.mkdir(`${root}/src`, 0o755);
        await host.mkdir(`${root}/ro`, 0o755);
        assert.equal((await host.run("mount", ["--bind", `${root}/src`, `${root}/ro`])).exitCode, 0);
        try {
          assert.equal((await host.run("mount", ["-o", "remount,bind,ro", `${root}/ro`])).exitCode, 0);
          await expectErrno(host.writeFile(`${root}/ro/x`, "no"), "EROFS");
          const entry = (await host.mountInfo()).find((mount) => mount.mountPoint === `${root}/ro`);
          assert.equal(entry?.options[0], "ro");
        } finally {
          await host.run("umount", [`${root}/ro`]);
        }
      });
    }

    if (capabilities.loop) {
      it("losetup attaches a loop device to a file, finds it with -j and detaches it", async () => {
        const { host, root } = get();
        await host.createSparseFile(`${root}/backing`, 4 * 1024 * 1024);
        const attached = await host.run("losetup", ["-f", "--show", `${root}/backing`]);
        assert.equal(attached.exitCode, 0, attached.output);
        const device = attached.output.trim();
        assert.match(device, /^\/dev\/loop\d+$/);
        assert.equal((await host.stat(device)).type, "blockDevice");
        const found = await host.run("losetup", ["-j", `${root}/backing`]);
        assert.ok(found.output.startsWith(`${device}:`), found.output);
        assert.equal((await host.run("losetup", ["-d", device])).exitCode, 0);
      });
    }
  });
}

function describeDaemons(get: () => { host: Host }, capabilities: HostCapabilities): void {
  const daemon = capabilities.daemonCommand ?? { command: "sleep", args: ["3600"] };
  describe("daemons", () => {
    it("starts a daemon with its scope, lists it, and kills it", async () => {
      const { host } = get();
      const started = await host.startDaemon({ name: "contract-daemon", ...daemon, scope: "own" });
      assert.equal(started.scope, "own");
      assert.equal(await host.isProcessAlive(started.pid), true);
      assert.ok((await host.daemons()).some((process) => process.pid === started.pid));
      await host.killProcess(started.pid);
      assert.equal(await host.isProcessAlive(started.pid), false);
      assert.ok(!(await host.daemons()).some((process) => process.pid === started.pid));
    });
  });
}

function describeMountHolders(get: () => HostUnderTest): void {
  describe("mount holders", () => {
    it("names the process whose working directory is on a mount, and no longer once it is gone", async (t) => {
      const { host, root, holdMount } = get();
      if (host.mountHolders === undefined || holdMount === undefined) {
        t.skip("this host cannot name the processes holding a mount");
        return;
      }
      const held = `${root}/held`;
      const other = `${root}/other`;
      for (const dir of [held, other]) {
        await host.mkdir(dir, 0o755);
        assert.equal((await host.run("mount", ["-t", "tmpfs", "tmpfs", dir])).exitCode, 0);
      }
      await host.mkdir(`${held}/sub`, 0o755);
      const holder = await holdMount(`${held}/sub`);
      try {
        const busy = await host.run("umount", [held]);
        assert.equal(busy.exitCode, 32);
        assert.match(busy.output, /target is busy/);
        const holders = await host.mountHolders(held);
        assert.deepEqual(
          holders.filter((found) => found.pid === holder.pid),
          [{ pid: holder.pid, command: holder.command }],
        );
        assert.deepEqual(
          (await host.mountHolders(other)).filter((found) => found.pid === holder.pid),
          [],
          "a process on another mount does not hold this one",
        );
        assert.deepEqual(
          (await host.mountHolders(`${root}/hel`)).filter((found) => found.pid === holder.pid),
          [],
          "a path that only starts with the same letters is another directory",
        );
      } finally {
        await holder.release();
      }
      assert.deepEqual(
        (await host.mountHolders(held)).filter((found) => found.pid === holder.pid),
        [],
      );
      for (const dir of [held, other]) assert.equal((await host.run("umount", [dir])).exitCode, 0);
    });
  });
}
