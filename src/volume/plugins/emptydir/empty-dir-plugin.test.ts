import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { VolumeSpec } from "../../spec.ts";
import { commandLine } from "../../testing/recording-host.ts";
import { type SimNodeFixture, settle, simNode } from "../../testing/sim-node.ts";
import { EmptyDirPlugin } from "./empty-dir-plugin.ts";

const uid = "6750b756-d8e4-448a-93f9-8906f9c44788";
const volumeDir = `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~empty-dir/cache`;
const readyFile = `/var/lib/kubelet/pods/${uid}/plugins/kubernetes.io~empty-dir/cache/ready`;

function pod(resources: { limits?: Record<string, string>; requests?: Record<string, string> } = {}): Pod {
  return {
    metadata: { name: "web", namespace: "default", uid },
    spec: { containers: [{ name: "app", image: "busybox", resources }] },
  };
}

async function plugin(fixture: SimNodeFixture): Promise<EmptyDirPlugin> {
  const emptyDir = new EmptyDirPlugin();
  emptyDir.init(fixture.volumeHost);
  return emptyDir;
}

async function exists(fixture: SimNodeFixture, path: string): Promise<boolean> {
  try {
    await fixture.host.lstat(path);
    return true;
  } catch {
    return false;
  }
}

describe("emptyDir on the node's disk", () => {
  it("creates a world-writable directory and a ready marker, and keeps data on a repeated SetUp", async () => {
    const fixture = await simNode();
    const emptyDir = await plugin(fixture);
    const spec = VolumeSpec.fromVolume({ name: "cache", emptyDir: {} });
    const mounter = emptyDir.newMounter(spec, pod());
    assert.equal(mounter.getPath(), volumeDir);
    await settle(fixture.clock, mounter.setUp({}));
    assert.equal((await fixture.host.stat(volumeDir)).mode, 0o777);
    assert.equal((await fixture.host.stat(readyFile)).type, "file");

    await fixture.host.writeFile(`${volumeDir}/data.txt`, "kept");
    await settle(fixture.clock, emptyDir.newMounter(spec, pod()).setUp({}));
    assert.equal(Buffer.from(await fixture.host.readFile(`${volumeDir}/data.txt`)).toString(), "kept");
    assert.deepEqual(fixture.commands, [], "a disk-backed emptyDir runs no command");
  });

  it("tears down by deleting the directory, its contents and the ready marker", async () => {
    const fixture = await simNode();
    const emptyDir = await plugin(fixture);
    await settle(
      fixture.clock,
      emptyDir.newMounter(VolumeSpec.fromVolume({ name: "cache", emptyDir: {} }), pod()).setUp({}),
    );
    await fixture.host.mkdir(`${volumeDir}/nested`, 0o755);
    await fixture.host.writeFile(`${volumeDir}/nested/file`, "x");
    await settle(fixture.clock, emptyDir.newUnmounter("cache", uid).tearDown());
    assert.equal(await exists(fixture, volumeDir), false);
    assert.equal(await exists(fixture, readyFile), false);
  });

  it("treats a missing directory at teardown as done, with a warning", async () => {
    const fixture = await simNode();
    const emptyDir = await plugin(fixture);
    await settle(fixture.clock, emptyDir.newUnmounter("cache", uid).tearDown());
    assert.ok(fixture.logger.warned(`Unmount skipped because path does not exist: ${volumeDir}`));
  });
});

describe("emptyDir in memory", () => {
  it("mounts a tmpfs sized to the smallest of sizeLimit, pod limit and allocatable, without a systemd scope", async () => {
    const fixture = await simNode({ allocatable: { memory: "4Gi" } });
    const emptyDir = await plugin(fixture);
    const spec = VolumeSpec.fromVolume({ name: "cache", emptyDir: { medium: "Memory", sizeLimit: "64Mi" } });
    await settle(fixture.clock, emptyDir.newMounter(spec, pod({ limits: { memory: "128Mi" } })).setUp({}));
    assert.deepEqual(fixture.commands.map(commandLine), [`mount -t tmpfs -o size=67108864 tmpfs ${volumeDir}`]);
    const mount = (await fixture.host.mountInfo()).find((entry) => entry.mountPoint === volumeDir);
    assert.equal(mount?.fsType, "tmpfs");
  });

  it("uses the pod's memory limit when it is below sizeLimit, and no size when nothing is known", async () => {
    const limited = await simNode();
    await settle(
      limited.clock,
      (await plugin(limited))
        .newMounter(
          VolumeSpec.fromVolume({ name: "cache", emptyDir: { medium: "Memory", sizeLimit: "1Gi" } }),
          pod({ limits: { memory: "32Mi" } }),
        )
        .setUp({}),
    );
    assert.deepEqual(limited.commands.map(commandLine), [`mount -t tmpfs -o size=33554432 tmpfs ${volumeDir}`]);

    const unknown = await simNode();
    await settle(
      unknown.clock,
      (await plugin(unknown))
        .newMounter(VolumeSpec.fromVolume({ name: "cache", emptyDir: { medium: "Memory" } }), pod())
        .setUp({}),
    );
    assert.deepEqual(unknown.commands.map(commandLine), [`mount -t tmpfs tmpfs ${volumeDir}`]);
  });

  it("does not mount twice, and unmounts at teardown", async () => {
    const fixture = await simNode();
    const emptyDir = await plugin(fixture);
    const spec = VolumeSpec.fromVolume({ name: "cache", emptyDir: { medium: "Memory" } });
    await settle(fixture.clock, emptyDir.newMounter(spec, pod()).setUp({}));
    await settle(fixture.clock, emptyDir.newMounter(spec, pod()).setUp({}));
    assert.equal((await fixture.host.mountInfo()).filter((entry) => entry.mountPoint === volumeDir).length, 1);

    await settle(fixture.clock, emptyDir.newUnmounter("cache", uid).tearDown());
    assert.equal(
      (await fixture.host.mountInfo()).some((entry) => entry.mountPoint === volumeDir),
      false,
    );
    assert.equal(await exists(fixture, volumeDir), false);
  });
});

describe("emptyDir on huge pages", () => {
  it("refuses HugePages when no container requests huge pages", async () => {
    const fixture = await simNode();
    const spec = VolumeSpec.fromVolume({ name: "cache", emptyDir: { medium: "HugePages" } });
    await assert.rejects(settle(fixture.clock, (await plugin(fixture)).newMounter(spec, pod()).setUp({})), {
      message: "medium HugePages: hugePages storage requested, but there is no resource request for huge pages",
    });
  });

  it("mounts hugetlbfs with the requested page size", async () => {
    const fixture = await simNode();
    const spec = VolumeSpec.fromVolume({ name: "cache", emptyDir: { medium: "HugePages-2Mi" } });
    const requests = { "hugepages-2Mi": "64Mi", memory: "64Mi" };
    await settle(
      fixture.clock,
      (await plugin(fixture)).newMounter(spec, pod({ requests, limits: requests })).setUp({}),
    );
    assert.deepEqual(fixture.commands.map(commandLine), [`mount -t hugetlbfs -o pagesize=2Mi nodev ${volumeDir}`]);
  });
});
