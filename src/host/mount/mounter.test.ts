import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { isHostError } from "../host.ts";
import { LinuxHost } from "../linux/linux-host.ts";
import { inPrivateMountNamespace } from "../linux/private-mount-namespace.ts";
import { RecordingCommands } from "../linux/recording-commands.ts";
import { makeScratchDir, mountsUnder, removeScratchDir } from "../linux/scratch-dir.ts";
import type { MountLogger } from "./logger.ts";
import { MountCommandError, Mounter, UnmountCommandError } from "./mounter.ts";

class RecordingLogger implements MountLogger {
  readonly lines: string[] = [];
  info(message: string): void {
    this.lines.push(`I ${message}`);
  }
  warning(message: string): void {
    this.lines.push(`W ${message}`);
  }
}

inPrivateMountNamespace(import.meta.filename, "Mounter on a real node", () => {
  let scratch = "";
  let commands: RecordingCommands;
  let host: LinuxHost;

  before(async () => {
    scratch = await makeScratchDir("mounter");
    commands = new RecordingCommands(join(scratch, "bin"));
    await mkdir(commands.binDir);
    await commands.wrap("mount");
    await commands.wrap("umount");
    host = new LinuxHost({ nodeName: "node-1", commandSearchPath: commands.searchPath });
  });
  after(async () => {
    await removeScratchDir(scratch);
  });

  async function freshDir(name: string): Promise<string> {
    const dir = join(scratch, name);
    await host.mkdir(dir, 0o750, { recursive: true });
    return dir;
  }

  test("a tmpfs of a given size is mounted with one mount(8) call and no systemd scope", async () => {
    const mounter = new Mounter(host);
    const target = await freshDir("empty-dir");
    await commands.clearCalls();
    await mounter.mount("tmpfs", target, "tmpfs", ["size=2097152"], { withSystemd: false });
    assert.deepEqual(await commands.calls(), [`mount -t tmpfs -o size=2097152 tmpfs ${target}`]);
    const entry = (await mounter.list()).find((mount) => mount.mountPoint === target);
    assert.ok(entry?.superOptions.includes("size=2048k"), String(entry?.superOptions));
    assert.equal(await mounter.isLikelyNotMountPoint(target), false);
    await mounter.unmount(target);
    assert.equal(await mounter.isLikelyNotMountPoint(target), true);
  });

  test("a read-only bind mount is a bind then a remount, and only the bind is read-only", async () => {
    const mounter = new Mounter(host);
    const source = await freshDir("global");
    const target = await freshDir("pod-ro");
    await host.writeFile(join(source, "data"), "v1");
    await commands.clearCalls();
    await mounter.mount(source, target, "", ["bind", "ro"]);
    assert.deepEqual(await commands.calls(), [
      `mount -o bind ${source} ${target}`,
      `mount -o bind,remount,ro ${source} ${target}`,
    ]);
    assert.equal(new TextDecoder().decode(await host.readFile(join(target, "data"))), "v1");
    await assert.rejects(host.writeFile(join(target, "data"), "v2"), (error: unknown) => isHostError(error, "EROFS"));
    await host.writeFile(join(source, "data"), "v2");
    assert.equal(new TextDecoder().decode(await host.readFile(join(target, "data"))), "v2");
    assert.deepEqual(await mounter.getMountRefs(source), [target]);
    await mounter.unmount(target);
    assert.deepEqual(await mountsUnder(scratch), []);
  });

  test("a failed mount reports exit status 32 with the command, masked arguments and output", async () => {
    const mounter = new Mounter(host);
    const target = await freshDir("failing");
    const failure = await mounter
      .mount("10.20.172.211:/nfs", target, "kvolfs", ["ro"], { sensitiveOptions: ["password=hunter2"] })
      .then(() => assert.fail("mounting an unknown filesystem type succeeded"))
      .catch((error: unknown) => error);
    assert.ok(failure instanceof MountCommandError);
    const [firstLine, commandLine, argumentsLine, outputLine] = failure.message.split("\n");
    assert.equal(firstLine, "mount failed: exit status 32");
    assert.equal(commandLine, "Mounting command: mount");
    assert.equal(argumentsLine, `Mounting arguments: -t kvolfs -o ro,<masked> 10.20.172.211:/nfs ${target}`);
    assert.match(outputLine ?? "", /^Output: mount: .*kvolfs/);
    assert.doesNotMatch(failure.message, /hunter2/);
    assert.ok(
      (await commands.calls()).some((call) => call.includes("ro,password=hunter2")),
      "mount(8) got the secret",
    );
  });

  test("with systemd present every mount runs in a transient scope, probed once, unless asked not to", async () => {
    const systemdBin = new RecordingCommands(join(scratch, "systemd-bin"));
    await mkdir(systemdBin.binDir);
    await systemdBin.wrap("systemd-run", { kind: "systemdRun" });
    await systemdBin.wrap("mount");
    const systemdHost = new LinuxHost({ nodeName: "node-1", commandSearchPath: systemdBin.searchPath });
    const mounter = new Mounter(systemdHost);
    const first = await freshDir("scoped-1");
    const second = await freshDir("scoped-2");
    const unscoped = await freshDir("unscoped");

    await mounter.mount("tmpfs", first, "tmpfs", []);
    await mounter.mount("tmpfs", second, "tmpfs", []);
    await mounter.mount("tmpfs", unscoped, "tmpfs", [], { withSystemd: false });
    assert.deepEqual(await systemdBin.calls(), [
      "systemd-run --description=Kubernetes systemd probe --scope true",
      `systemd-run --description=Kubernetes transient mount for ${first} --scope -- mount -t tmpfs tmpfs ${first}`,
      `mount -t tmpfs tmpfs ${first}`,
      `systemd-run --description=Kubernetes transient mount for ${second} --scope -- mount -t tmpfs tmpfs ${second}`,
      `mount -t tmpfs tmpfs ${second}`,
      `mount -t tmpfs tmpfs ${unscoped}`,
    ]);

    const failing = await freshDir("scoped-failing");
    await assert.rejects(mounter.mount("10.20.172.211:/nfs", failing, "kvolfs", []), (error: unknown) => {
      assert.ok(error instanceof Error);
      const lines = error.message.split("\n");
      assert.deepEqual(lines.slice(0, 3), [
        "mount failed: exit status 32",
        "Mounting command: systemd-run",
        `Mounting arguments: --description=Kubernetes transient mount for ${failing} --scope -- mount -t kvolfs 10.20.172.211:/nfs ${failing}`,
      ]);
      assert.equal(lines[3], "Output: Running scope as unit run-38284.scope.");
      return true;
    });
    for (const target of [first, second, unscoped]) await mounter.unmount(target);
  });

  test("without a working systemd the probe fails once and mounts run mount(8) directly", async () => {
    const logger = new RecordingLogger();
    const mounter = new Mounter(host, { logger });
    const target = await freshDir("no-systemd");
    await commands.clearCalls();
    await mounter.mount("tmpfs", target, "tmpfs", []);
    assert.equal(
      await mounter.hasSystemd(),
      (await commands.calls()).some((call) => call.startsWith("systemd-run")),
    );
    assert.ok((await commands.calls()).includes(`mount -t tmpfs tmpfs ${target}`));
    await mounter.unmount(target);
  });

  test("unmounting a directory that is not mounted fails with umount's words, unless the safe behaviour was detected", async () => {
    const plain = await freshDir("plain");
    const strict = new Mounter(host);
    await assert.rejects(strict.unmount(plain), (error: unknown) => {
      assert.ok(error instanceof UnmountCommandError);
      assert.equal(
        error.message,
        `unmount failed: exit status 32\nUnmounting arguments: ${plain}\nOutput: ${error.output}`,
      );
      assert.match(error.output, /not mounted/);
      return true;
    });
    const safe = new Mounter(host, { safeNotMountedProbeParentDir: scratch });
    assert.equal(await safe.canSafelySkipMountPointCheck(), true);
    await safe.unmount(plain);
    await assert.rejects(host.stat(join(scratch, "kubelet-detect-safe-umount")), (error: unknown) =>
      isHostError(error, "ENOENT"),
    );
  });

  test("unmountWithForce falls back to umount -f when the plain umount hangs past its deadline", async () => {
    const hanging = new RecordingCommands(join(scratch, "hanging-bin"));
    await mkdir(hanging.binDir);
    await hanging.wrap("umount", { kind: "hangUnlessForced" });
    const hangingHost = new LinuxHost({ nodeName: "node-1", commandSearchPath: hanging.searchPath });
    const logger = new RecordingLogger();
    const mounter = new Mounter(hangingHost, { logger });
    const target = await freshDir("hung-nfs");
    await mounter.mount("tmpfs", target, "tmpfs", []);
    await mounter.unmountWithForce(target, 200);
    assert.deepEqual(await hanging.calls(), [`umount ${target}`, `umount -f ${target}`]);
    assert.ok(logger.lines.includes(`I Timed out waiting for unmount of ${target}, trying with -f`));
    assert.equal(await mounter.isLikelyNotMountPoint(target), true);
  });
});
