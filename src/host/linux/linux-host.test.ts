import assert from "node:assert/strict";
import { stat as nodeStat, writeFile as nodeWriteFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { HostError, isHostError } from "../host.ts";
import { mountInfoConsistentReadAttempts } from "../mount/constants.ts";
import { mountDeadFuse, whyDeadFuseCannotBeMounted } from "./dead-fuse-mount.ts";
import { LinuxHost } from "./linux-host.ts";
import { consistentRead } from "./mount-info-reader.ts";
import { inPrivateMountNamespace, requireOrSkip } from "./private-mount-namespace.ts";
import { makeScratchDir, mountsUnder, removeScratchDir } from "./scratch-dir.ts";

inPrivateMountNamespace(import.meta.filename, "LinuxHost", () => {
  const host = new LinuxHost({ nodeName: "node-1" });
  let scratch = "";
  before(async () => {
    scratch = await makeScratchDir("linux-host");
  });
  after(async () => {
    await removeScratchDir(scratch);
  });

  test("mkdir applies the requested mode to every directory it creates, whatever the umask", async () => {
    const previousUmask = process.umask(0o077);
    try {
      await host.mkdir(join(scratch, "a/b/c"), 0o750, { recursive: true });
      await host.mkdir(join(scratch, "empty-dir"), 0o777);
    } finally {
      process.umask(previousUmask);
    }
    for (const dir of ["a", "a/b", "a/b/c"]) assert.equal((await host.stat(join(scratch, dir))).mode, 0o750, dir);
    assert.equal((await host.stat(join(scratch, "empty-dir"))).mode, 0o777);
    await host.mkdir(join(scratch, "a/b/c"), 0o700, { recursive: true });
    assert.equal(
      (await host.stat(join(scratch, "a/b/c"))).mode,
      0o750,
      "mkdir -p leaves an existing directory as it is",
    );
  });

  test("fs failures are HostErrors with the errno and Go's wording", async () => {
    const missing = join(scratch, "missing");
    await assert.rejects(host.stat(missing), (error: unknown) => {
      assert.ok(isHostError(error, "ENOENT"));
      assert.equal((error as HostError).message, `stat ${missing}: no such file or directory`);
      return true;
    });
    await host.mkdir(join(scratch, "full"), 0o755);
    await host.writeFile(join(scratch, "full/data"), "keep me");
    await assert.rejects(host.rmdir(join(scratch, "full")), (error: unknown) => isHostError(error, "ENOTEMPTY"));
    await assert.rejects(host.mkdir(join(scratch, "full"), 0o755), (error: unknown) => isHostError(error, "EEXIST"));
    await assert.rejects(host.rmdir(join(scratch, "full/data")), (error: unknown) => isHostError(error, "ENOTDIR"));
    await assert.rejects(host.mkdir(join(scratch, "full/data/below"), 0o755, { recursive: true }), (error: unknown) =>
      isHostError(error, "ENOTDIR"),
    );
    assert.equal(new TextDecoder().decode(await host.readFile(join(scratch, "full/data"))), "keep me");
  });

  test("files, symlinks and atomic rename behave as the kernel's", async () => {
    const dir = join(scratch, "files");
    await host.mkdir(dir, 0o755);
    await host.writeFile(join(dir, "b"), "bee", 0o600);
    await host.writeFile(join(dir, "a"), new Uint8Array([104, 105]));
    assert.deepEqual(await host.readdir(dir), ["a", "b"]);
    assert.equal((await host.stat(join(dir, "b"))).mode, 0o600);
    assert.equal((await host.stat(join(dir, "b"))).size, 3);

    await host.symlink("b", join(dir, "link"));
    assert.equal((await host.lstat(join(dir, "link"))).type, "symlink");
    assert.equal((await host.stat(join(dir, "link"))).type, "file");
    assert.equal(await host.readlink(join(dir, "link")), "b");
    await host.symlink("a", join(dir, "link-tmp"));
    await host.rename(join(dir, "link-tmp"), join(dir, "link"));
    assert.equal(await host.readlink(join(dir, "link")), "a", "rename replaces the symlink in place");
    await host.unlink(join(dir, "link"));
    assert.deepEqual(await host.readdir(dir), ["a", "b"]);
  });

  test("createSparseFile makes a file of the size that takes no blocks", async () => {
    const file = join(scratch, "disk.img");
    const sizeBytes = 64 * 1024 * 1024;
    await host.createSparseFile(file, sizeBytes);
    assert.equal((await host.stat(file)).size, sizeBytes);
    assert.equal((await nodeStat(file)).blocks, 0);
    await assert.rejects(host.createSparseFile(join(scratch, "bad.img"), -1), /sizeBytes must be a whole number >= 0/);
  });

  test("run returns combined output and the exit status, with input on stdin", async () => {
    const result = await host.run("sh", ["-c", "echo out; echo err >&2; cat; exit 3"], { input: "in\n" });
    assert.equal(result.exitCode, 3);
    assert.equal(result.output, "out\nerr\nin\n");
    assert.deepEqual(await host.run("true", []), { exitCode: 0, output: "" });
  });

  test("run reports a binary missing from PATH as exit status 127", async () => {
    assert.deepEqual(await host.run("mount.kvol-never-installed", []), { exitCode: 127, output: "" });
  });

  test("run kills a command at its deadline and fails with ETIMEDOUT", async () => {
    await assert.rejects(host.run("sleep", ["30"], { timeoutMs: 100 }), (error: unknown) => {
      assert.ok(isHostError(error, "ETIMEDOUT"), String(error));
      return true;
    });
  });

  test("hasCommand searches the configured PATH for an executable file", async () => {
    const bin = join(scratch, "bin");
    await host.mkdir(bin, 0o755);
    await nodeWriteFile(join(bin, "mount.fake"), "#!/bin/sh\necho fake helper\n", { mode: 0o755 });
    await nodeWriteFile(join(bin, "not-executable"), "#!/bin/sh\n", { mode: 0o644 });
    const withBin = new LinuxHost({ nodeName: "node-1", commandSearchPath: `${bin}:/usr/bin:/bin` });
    assert.equal(await withBin.hasCommand("mount.fake"), true);
    assert.equal(await withBin.hasCommand("not-executable"), false);
    assert.equal(await withBin.hasCommand("sh"), true);
    assert.equal(await host.hasCommand("mount.fake"), false);
    assert.deepEqual(await withBin.run("mount.fake", []), { exitCode: 0, output: "fake helper\n" });
  });

  test("mountInfo shows a tmpfs with its size, and forgets it after umount", async () => {
    const target = join(scratch, "tmpfs");
    await host.mkdir(target, 0o755);
    const mounted = await host.run("mount", ["-t", "tmpfs", "-o", "size=1048576", "tmpfs", target]);
    assert.equal(mounted.exitCode, 0, mounted.output);
    const entry = (await host.mountInfo()).find((mount) => mount.mountPoint === target);
    assert.equal(entry?.fsType, "tmpfs");
    assert.ok(entry?.superOptions.includes("size=1024k"), String(entry?.superOptions));
    assert.notEqual((await host.stat(target)).dev, (await host.stat(scratch)).dev);
    assert.equal((await host.run("umount", [target])).exitCode, 0);
    assert.deepEqual(await mountsUnder(scratch), []);
  });

  test("a file that never reads the same twice is refused after the consistent-read attempts", async () => {
    // The kernel hands out a new UUID on every read of this file.
    await assert.rejects(
      consistentRead("/proc/sys/kernel/random/uuid", mountInfoConsistentReadAttempts),
      /^Error: could not get consistent content of \/proc\/sys\/kernel\/random\/uuid after 10 attempts$/,
    );
    assert.ok((await consistentRead("/proc/self/mountinfo", mountInfoConsistentReadAttempts)).includes(" - "));
  });

  test("a mount point with spaces in its path is read back intact", async () => {
    const target = join(scratch, "pod data");
    await host.mkdir(target, 0o755);
    assert.equal((await host.run("mount", ["-t", "tmpfs", "tmpfs", target])).exitCode, 0);
    assert.deepEqual(await mountsUnder(scratch), [target]);
    assert.equal((await host.run("umount", [target])).exitCode, 0);
  });

  test("a FUSE mount whose daemon died fails every stat with ENOTCONN", async (t) => {
    if (!requireOrSkip(t, whyDeadFuseCannotBeMounted())) return;
    const target = join(scratch, "fuse");
    await host.mkdir(target, 0o755);
    mountDeadFuse("kvol-dead-fuse", target);
    await assert.rejects(host.stat(target), (error: unknown) => {
      assert.ok(isHostError(error, "ENOTCONN"), String(error));
      assert.equal((error as HostError).message, `stat ${target}: transport endpoint is not connected`);
      return true;
    });
    assert.equal((await host.mountInfo()).find((mount) => mount.mountPoint === target)?.fsType, "fuse");
    assert.equal((await host.run("umount", [target])).exitCode, 0);
    assert.equal((await host.stat(target)).type, "directory");
  });

  test("an errno the Host has no name for passes through unchanged rather than posing as another", async () => {
    const tooLongName = join(scratch, "x".repeat(300));
    await assert.rejects(host.stat(tooLongName), (error: unknown) => {
      assert.ok(!(error instanceof HostError));
      assert.equal((error as NodeJS.ErrnoException).code, "ENAMETOOLONG");
      return true;
    });
  });

  test("a read-only mount refuses writes with EROFS", async () => {
    const target = join(scratch, "read-only");
    await host.mkdir(target, 0o755);
    assert.equal((await host.run("mount", ["-t", "tmpfs", "-o", "ro", "tmpfs", target])).exitCode, 0);
    try {
      await assert.rejects(host.writeFile(join(target, "x"), "x"), (error: unknown) => isHostError(error, "EROFS"));
    } finally {
      assert.equal((await host.run("umount", [target])).exitCode, 0);
    }
  });
});
