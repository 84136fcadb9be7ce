import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { isHostError } from "../host.ts";
import { mountDeadFuse, whyDeadFuseCannotBeMounted } from "../linux/dead-fuse-mount.ts";
import { LinuxHost } from "../linux/linux-host.ts";
import { inPrivateMountNamespace, requireOrSkip } from "../linux/private-mount-namespace.ts";
import { makeScratchDir, mountsUnder, removeScratchDir } from "../linux/scratch-dir.ts";
import { cleanupMountPoint } from "./cleanup-mount-point.ts";
import type { MountLogger } from "./logger.ts";
import { Mounter } from "./mounter.ts";

inPrivateMountNamespace(import.meta.filename, "CleanupMountPoint on a real node", () => {
  const host = new LinuxHost({ nodeName: "node-1" });
  let scratch = "";
  const warnings: string[] = [];
  const logger: MountLogger = { info: () => undefined, warning: (message) => warnings.push(message) };
  /** Without the "not mounted" probe: every cleanup checks for a mount point first. */
  const mounter = new Mounter(host, { logger });

  before(async () => {
    scratch = await makeScratchDir("cleanup");
  });
  after(async () => {
    await removeScratchDir(scratch);
  });

  async function exists(path: string): Promise<boolean> {
    return await host.stat(path).then(
      () => true,
      (error: unknown) => (isHostError(error, "ENOENT") ? false : Promise.reject(error)),
    );
  }

  test("a mounted volume is unmounted and its directory removed", async () => {
    const target = join(scratch, "tmpfs-volume");
    await host.mkdir(target, 0o750);
    await mounter.mount("tmpfs", target, "tmpfs", [], { withSystemd: false });
    await host.writeFile(join(target, "data"), "in memory");
    await cleanupMountPoint(host, mounter, target, false);
    assert.equal(await exists(target), false);
    assert.deepEqual(await mountsUnder(scratch), []);
  });

  test("an absent path is a success with a warning", async () => {
    const missing = join(scratch, "never-created");
    warnings.length = 0;
    await cleanupMountPoint(host, mounter, missing, true);
    assert.deepEqual(warnings, [`Mount cleanup skipped because path does not exist: ${missing}`]);
  });

  test("data in a directory that is not a mount point is never deleted", async () => {
    const dir = join(scratch, "not-a-mount");
    await host.mkdir(dir, 0o750);
    await host.writeFile(join(dir, "precious"), "keep");
    await assert.rejects(cleanupMountPoint(host, mounter, dir, false), (error: unknown) =>
      isHostError(error, "ENOTEMPTY"),
    );
    assert.equal(new TextDecoder().decode(await host.readFile(join(dir, "precious"))), "keep");
  });

  test("a bind mount in the same filesystem needs the extensive check to be cleaned up", async () => {
    const source = join(scratch, "bind-source");
    const target = join(scratch, "bind-target");
    await host.mkdir(source, 0o750);
    await host.mkdir(target, 0o750);
    await host.writeFile(join(source, "data"), "shared");
    await mounter.mount(source, target, "", ["bind"], { withSystemd: false });
    // The device check sees a plain directory and tries rmdir, which the mount refuses.
    await assert.rejects(cleanupMountPoint(host, mounter, target, false), (error: unknown) =>
      isHostError(error, "EBUSY"),
    );
    await cleanupMountPoint(host, mounter, target, true);
    assert.equal(await exists(target), false);
    assert.equal(new TextDecoder().decode(await host.readFile(join(source, "data"))), "shared");
  });

  test("a mount whose FUSE daemon died is unmounted without a mount-point check, then removed", async (t) => {
    if (!requireOrSkip(t, whyDeadFuseCannotBeMounted())) return;
    for (const extensive of [false, true]) {
      const target = join(scratch, `dead-fuse-${extensive}`);
      await host.mkdir(target, 0o750);
      mountDeadFuse("kvol-dead-fuse", target);
      await cleanupMountPoint(host, mounter, target, extensive);
      assert.equal(await exists(target), false, `extensive=${extensive}`);
    }
    assert.deepEqual(await mountsUnder(scratch), []);
  });

  test("a stat error that is not a corrupted mount stops the cleanup", async () => {
    const fileInTheWay = join(scratch, "file");
    await host.writeFile(fileInTheWay, "x");
    await assert.rejects(cleanupMountPoint(host, mounter, join(fileInTheWay, "below"), false), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.equal(error.message, `Error checking path: stat ${fileInTheWay}/below: not a directory`);
      return true;
    });
  });
});
