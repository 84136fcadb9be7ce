import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { HostError, isHostError, type MountInfo } from "../host.ts";
import { mountDeadFuse, whyDeadFuseCannotBeMounted } from "../linux/dead-fuse-mount.ts";
import { LinuxHost } from "../linux/linux-host.ts";
import { inPrivateMountNamespace, requireOrSkip } from "../linux/private-mount-namespace.ts";
import { makeScratchDir, removeScratchDir } from "../linux/scratch-dir.ts";
import {
  getMountRefs,
  isCorruptedMnt,
  isLikelyNotMountPoint,
  isNotMountPoint,
  isPathWithin,
  pathExists,
  searchMountPoints,
} from "./mount-points.ts";

function mount(id: number, majorMinor: string, root: string, mountPoint: string): MountInfo {
  return {
    id,
    parentId: 1,
    majorMinor,
    root,
    mountPoint,
    options: ["rw"],
    fsType: "ext4",
    source: "/dev/sdb",
    superOptions: ["rw"],
  };
}

test("every corrupted-mount errno counts, and nothing else does", () => {
  for (const code of ["ENOTCONN", "ESTALE", "EIO", "EACCES", "EHOSTDOWN", "EWOULDBLOCK", "ENODEV"] as const) {
    assert.equal(isCorruptedMnt(new HostError(code, "stat", "/x")), true, code);
  }
  assert.equal(isCorruptedMnt(new HostError("ENOENT", "stat", "/x")), false);
  assert.equal(isCorruptedMnt(new HostError("EPERM", "stat", "/x")), false);
  assert.equal(isCorruptedMnt(new Error("transport endpoint is not connected")), false);
  assert.equal(isCorruptedMnt(undefined), false);
});

test("mount references are the other mounts of the same device and subtree", () => {
  const globalMount = "/var/lib/kubelet/plugins/kubernetes.io/csi/drv/abc/globalmount";
  const table = [
    mount(21, "8:1", "/", "/"),
    mount(30, "8:16", "/", globalMount),
    mount(31, "8:16", "/", "/var/lib/kubelet/pods/p1/volumes/kubernetes.io~csi/pv1/mount"),
    mount(32, "8:16", "/", "/var/lib/kubelet/pods/p2/volumes/kubernetes.io~csi/pv1/mount"),
    mount(33, "8:16", "/sub", "/var/lib/kubelet/pods/p3/volume-subpaths/pv1/c/0"),
    mount(34, "8:32", "/", "/other"),
  ];
  assert.deepEqual(searchMountPoints(globalMount, table), [
    "/var/lib/kubelet/pods/p1/volumes/kubernetes.io~csi/pv1/mount",
    "/var/lib/kubelet/pods/p2/volumes/kubernetes.io~csi/pv1/mount",
  ]);
  assert.deepEqual(searchMountPoints(`${globalMount}/sub`, table), [
    "/var/lib/kubelet/pods/p3/volume-subpaths/pv1/c/0",
  ]);
  assert.deepEqual(searchMountPoints("/srv/data", table), [], "a plain directory on / has no references");
  assert.throws(() => searchMountPoints("/x", []), /failed to get root path and major:minor for \/x/);
});

test("path containment is by whole components", () => {
  assert.equal(isPathWithin("/a/b", "/a"), true);
  assert.equal(isPathWithin("/a", "/a"), true);
  assert.equal(isPathWithin("/ab", "/a"), false);
  assert.equal(isPathWithin("/x", "/"), true);
});

inPrivateMountNamespace(import.meta.filename, "mount-point checks on a real node", () => {
  const host = new LinuxHost({ nodeName: "node-1" });
  let scratch = "";
  before(async () => {
    scratch = await makeScratchDir("mount-points");
  });
  after(async () => {
    await removeScratchDir(scratch);
  });

  async function run(command: string, ...args: string[]): Promise<void> {
    const result = await host.run(command, args);
    assert.equal(result.exitCode, 0, `${command} ${args.join(" ")}: ${result.output}`);
  }

  test("a bind mount within one filesystem fools the device check but not the mount table", async () => {
    const source = join(scratch, "source");
    const target = join(scratch, "target");
    const link = join(scratch, "link-to-target");
    await host.mkdir(source, 0o755);
    await host.mkdir(target, 0o755);
    await host.symlink(target, link);
    await run("mount", "--bind", source, target);
    try {
      assert.equal(await isLikelyNotMountPoint(host, target), true);
      assert.equal(await isNotMountPoint(host, target), false);
      assert.equal(await isNotMountPoint(host, link), false, "symlinks are resolved before the table lookup");
      assert.equal(await isNotMountPoint(host, source), true);
      assert.deepEqual(await getMountRefs(host, source), [target]);
    } finally {
      await run("umount", target);
    }
    assert.equal(await isNotMountPoint(host, target), true);
  });

  test("a missing path is an error for the mount-point checks and absent for pathExists", async () => {
    const missing = join(scratch, "missing");
    await assert.rejects(isLikelyNotMountPoint(host, missing), (error: unknown) => isHostError(error, "ENOENT"));
    await assert.rejects(isNotMountPoint(host, missing), (error: unknown) => isHostError(error, "ENOENT"));
    assert.deepEqual(await pathExists(host, missing), { exists: false });
    assert.deepEqual(await getMountRefs(host, missing), []);
    assert.deepEqual(await pathExists(host, scratch), { exists: true });
  });

  test("a mount whose FUSE daemon died exists, is corrupted, and has no references", async (t) => {
    if (!requireOrSkip(t, whyDeadFuseCannotBeMounted())) return;
    const target = join(scratch, "fuse");
    await host.mkdir(target, 0o755);
    mountDeadFuse("kvol-dead-fuse", target);
    try {
      const existence = await pathExists(host, target);
      assert.equal(existence.exists, true);
      assert.ok(isHostError(existence.error, "ENOTCONN"), String(existence.error));
      assert.equal(isCorruptedMnt(existence.error), true);
      await assert.rejects(isLikelyNotMountPoint(host, target), (error: unknown) => isHostError(error, "ENOTCONN"));
      const warnings: string[] = [];
      const refs = await getMountRefs(host, target, { info: () => undefined, warning: (m) => warnings.push(m) });
      assert.deepEqual(refs, []);
      assert.deepEqual(warnings, [`GetMountRefs found corrupted mount at ${target}, treating as unmounted path`]);
    } finally {
      await run("umount", target);
    }
  });
});
