import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { LinuxHost } from "../linux/linux-host.ts";
import { inPrivateMountNamespace } from "../linux/private-mount-namespace.ts";
import { RecordingCommands } from "../linux/recording-commands.ts";
import { makeScratchDir, mountsUnder, removeScratchDir } from "../linux/scratch-dir.ts";
import type { MountLogger } from "./logger.ts";
import { Mounter } from "./mounter.ts";
import { getDiskFormat, MountError, SafeFormatAndMount } from "./safe-format-and-mount.ts";

/** Big enough for mkfs.ext4 to make a usable filesystem. */
const diskImageSizeBytes = 32 * 1024 * 1024;

inPrivateMountNamespace(import.meta.filename, "SafeFormatAndMount on a real node", () => {
  let scratch = "";
  let commands: RecordingCommands;
  let host: LinuxHost;
  const lines: string[] = [];
  const logger: MountLogger = {
    info: (message) => lines.push(`I ${message}`),
    warning: (message) => lines.push(`W ${message}`),
  };

  before(async () => {
    scratch = await makeScratchDir("format");
    commands = new RecordingCommands(join(scratch, "bin"));
    await mkdir(commands.binDir);
    for (const name of ["blkid", "mkfs.ext4", "fsck", "mount"]) await commands.wrap(name);
    host = new LinuxHost({ nodeName: "node-1", commandSearchPath: commands.searchPath });
  });
  after(async () => {
    await removeScratchDir(scratch);
  });

  async function blankDisk(name: string): Promise<string> {
    const disk = join(scratch, name);
    await host.createSparseFile(disk, diskImageSizeBytes);
    return disk;
  }

  async function target(name: string): Promise<string> {
    const dir = join(scratch, name);
    await host.mkdir(dir, 0o750);
    return dir;
  }

  test("a blank disk is never formatted for a read-only mount", async () => {
    const disk = await blankDisk("blank-ro.img");
    const formatter = new SafeFormatAndMount(new Mounter(host, { logger }));
    await commands.clearCalls();
    await assert.rejects(
      formatter.formatAndMount(disk, await target("ro-target"), "ext4", ["ro"]),
      (error: unknown) => {
        assert.ok(error instanceof MountError);
        assert.equal(error.type, "UnformattedReadOnly");
        assert.equal(
          error.message,
          `cannot mount unformatted disk ${disk} as we are manipulating it in read-only mode`,
        );
        return true;
      },
    );
    assert.ok(!(await commands.calls()).some((call) => call.startsWith("mkfs")));
  });

  test("a blank disk is formatted ext4 by default, then mounted; a formatted one is checked, not formatted", async () => {
    const disk = await blankDisk("blank.img");
    const mountPoint = await target("rw-target");
    const mounter = new Mounter(host, { logger });
    const formatter = new SafeFormatAndMount(mounter);
    await commands.clearCalls();
    await formatter.formatAndMount(disk, mountPoint, "", []);
    const firstCalls = await commands.calls();
    assert.ok(firstCalls.includes(`blkid -p -s TYPE -s PTTYPE -o export ${disk}`), firstCalls.join("\n"));
    assert.ok(firstCalls.includes(`mkfs.ext4 -F -m0 ${disk}`), firstCalls.join("\n"));
    assert.ok(!firstCalls.some((call) => call.startsWith("fsck")), "a fresh filesystem is not checked");
    assert.equal((await mounter.list()).find((entry) => entry.mountPoint === mountPoint)?.fsType, "ext4");
    await host.writeFile(join(mountPoint, "data"), "persisted");
    await mounter.unmount(mountPoint);

    assert.equal(await getDiskFormat(host, disk), "ext4");
    await commands.clearCalls();
    await formatter.formatAndMount(disk, mountPoint, "ext4", []);
    const secondCalls = await commands.calls();
    assert.ok(secondCalls.includes(`fsck -a ${disk}`), secondCalls.join("\n"));
    assert.ok(!secondCalls.some((call) => call.startsWith("mkfs")), "a formatted disk is never formatted again");
    assert.equal(new TextDecoder().decode(await host.readFile(join(mountPoint, "data"))), "persisted");
    await mounter.unmount(mountPoint);
    assert.deepEqual(await mountsUnder(scratch), []);
  });

  test("asking for another filesystem than the disk holds warns and fails the mount as a mismatch", async () => {
    const disk = await blankDisk("mismatch.img");
    const mountPoint = await target("mismatch-target");
    const formatter = new SafeFormatAndMount(new Mounter(host, { logger }));
    await formatter.formatAndMount(disk, mountPoint, "ext4", []);
    await formatter.mounter.unmount(mountPoint);
    lines.length = 0;
    await assert.rejects(formatter.formatAndMount(disk, mountPoint, "ext3", ["ro"]), (error: unknown) => {
      assert.ok(error instanceof MountError);
      assert.equal(error.type, "FilesystemMismatch");
      assert.match(error.message, /^mount failed: exit status 32\nMounting command: mount\n/);
      return true;
    });
    assert.ok(
      lines.includes(`W Configured to mount disk ${disk} as ext4 but current format is ext3, things might break`),
    );
    assert.deepEqual(await mountsUnder(scratch), []);
  });

  test("errors fsck cannot correct stop the mount; corrected ones are only reported", async () => {
    const disk = await blankDisk("damaged.img");
    const mountPoint = await target("damaged-target");
    const formatter = new SafeFormatAndMount(new Mounter(host, { logger }));
    await formatter.formatAndMount(disk, mountPoint, "ext4", []);
    await formatter.mounter.unmount(mountPoint);

    await commands.wrap("fsck", { kind: "exit", status: 4 });
    await assert.rejects(formatter.formatAndMount(disk, mountPoint, "ext4", []), (error: unknown) => {
      assert.ok(error instanceof MountError);
      assert.equal(error.type, "HasFilesystemErrors");
      assert.equal(error.message, `'fsck' found errors on device ${disk} but could not correct them: `);
      return true;
    });
    assert.deepEqual(await mountsUnder(scratch), []);

    await commands.wrap("fsck", { kind: "exit", status: 1 });
    lines.length = 0;
    await formatter.formatAndMount(disk, mountPoint, "ext4", []);
    assert.ok(lines.includes(`I Device ${disk} has errors which were corrected by fsck.`));
    await formatter.mounter.unmount(mountPoint);
    await commands.wrap("fsck");
  });
});
