/** SafeFormatAndMount on simulated nodes: injected format failures and fsck results. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newTestWorld } from "../sim/testing/sim-test-world.ts";
import { Mounter } from "./mounter.ts";
import { getDiskFormat, MountError, SafeFormatAndMount } from "./safe-format-and-mount.ts";

const globalMount = "/var/lib/kubelet/plugins/kubernetes.io/local-volume/mounts/pv-1";

async function nodeWithBlankDisk() {
  const { world } = newTestWorld();
  const node = world.addNode("node-a");
  await node.createSparseFile("/var/disk.img", 64 * 1024 * 1024);
  const device = (await node.run("losetup", ["-f", "--show", "/var/disk.img"])).output.trim();
  await node.mkdir(globalMount, 0o750, { recursive: true });
  return { node, device, formatter: new SafeFormatAndMount(new Mounter(node)) };
}

async function formatFailure(promise: Promise<void>): Promise<MountError> {
  const failure = await promise.then(
    () => assert.fail("formatAndMount succeeded"),
    (error: unknown) => error,
  );
  assert.ok(failure instanceof MountError, String(failure));
  return failure;
}

describe("SafeFormatAndMount on a simulated node", () => {
  it("formats a blank device once, and keeps its data across later mounts", async () => {
    const { node, device, formatter } = await nodeWithBlankDisk();
    assert.equal(await getDiskFormat(node, device), "");
    await formatter.formatAndMount(device, globalMount, "", []);
    assert.equal(await getDiskFormat(node, device), "ext4");
    await node.writeFile(`${globalMount}/data`, "kept");
    await formatter.mounter.unmount(globalMount);
    await formatter.formatAndMount(device, globalMount, "ext4", []);
    assert.equal(new TextDecoder().decode(await node.readFile(`${globalMount}/data`)), "kept");
  });

  it("a failed mkfs names the disk, the type, the target and mkfs's output", async () => {
    const { node, device, formatter } = await nodeWithBlankDisk();
    await node.injectFormatFailure(device, "mke2fs: Input/output error while writing out and closing file system\n");
    const failure = await formatFailure(
      formatter.formatAndMount(device, globalMount, "ext4", [], { sensitiveOptions: ["key=1"] }),
    );
    assert.equal(failure.type, "FormatFailed");
    assert.equal(
      failure.message,
      `format of disk "${device}" failed: type:("ext4") target:("${globalMount}") options:("defaults,<masked>") ` +
        "errcode:(exit status 1) output:(mke2fs: Input/output error while writing out and closing file system\n) ",
    );
  });

  it("uncorrectable fsck errors fail the read-write mount, and a read-only mount skips fsck", async () => {
    const { node, device, formatter } = await nodeWithBlankDisk();
    await formatter.formatAndMount(device, globalMount, "ext4", []);
    await formatter.mounter.unmount(globalMount);
    await node.setFsckResult(device, 4, `${device}: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.\n`);
    const failure = await formatFailure(formatter.formatAndMount(device, globalMount, "ext4", []));
    assert.equal(failure.type, "HasFilesystemErrors");
    assert.equal(
      failure.message,
      `'fsck' found errors on device ${device} but could not correct them: fsck from util-linux 2.23\n` +
        `${device}: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.\n`,
    );
    await formatter.formatAndMount(device, globalMount, "ext4", ["ro"]);
    assert.ok((await node.mountInfo()).some((entry) => entry.mountPoint === globalMount));
  });
});
