import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { VolumeSpec } from "../../spec.ts";
import { type SimNodeFixture, settle, simNode } from "../../testing/sim-node.ts";
import { HostPathPlugin } from "./host-path-plugin.ts";

const pod: Pod = {
  metadata: { name: "csi-attacher-0", namespace: "kube-system", uid: "u-1" },
  spec: { containers: [] },
};

async function setUp(fixture: SimNodeFixture, path: string, type?: string): Promise<void> {
  const plugin = new HostPathPlugin();
  plugin.init(fixture.volumeHost);
  const spec = VolumeSpec.fromVolume({
    name: "socket-dir",
    hostPath: { path, ...(type === undefined ? {} : { type }) },
  });
  const mounter = plugin.newMounter(spec, pod);
  assert.equal(mounter.getPath(), path, "the container gets the node path itself");
  await settle(fixture.clock, mounter.setUp({}));
}

describe("hostPath", () => {
  it("creates DirectoryOrCreate paths with 0755, parents included", async () => {
    const fixture = await simNode();
    await setUp(fixture, "/var/lib/kubelet/plugins/csi-hostpath", "DirectoryOrCreate");
    const stat = await fixture.host.stat("/var/lib/kubelet/plugins/csi-hostpath");
    assert.equal(stat.type, "directory");
    assert.equal(stat.mode, 0o755);
  });

  it("creates FileOrCreate files empty with 0644 and never truncates an existing one", async () => {
    const fixture = await simNode();
    await setUp(fixture, "/run/xtables.lock", "FileOrCreate");
    assert.equal((await fixture.host.stat("/run/xtables.lock")).mode, 0o644);
    await fixture.host.writeFile("/run/xtables.lock", "held");
    await setUp(fixture, "/run/xtables.lock", "FileOrCreate");
    assert.equal(Buffer.from(await fixture.host.readFile("/run/xtables.lock")).toString(), "held");
  });

  it("checks existing types with Kubernetes' messages", async () => {
    const fixture = await simNode();
    await fixture.host.writeFile("/etc/app.conf", "x");
    await setUp(fixture, "/etc", "Directory");
    await setUp(fixture, "/etc/app.conf", "File");
    await setUp(fixture, "/nonexistent", "");
    const cases: Array<[string, string, string]> = [
      ["/etc/app.conf", "Directory", "hostPath type check failed: /etc/app.conf is not a directory"],
      ["/missing", "Directory", "hostPath type check failed: /missing is not a directory"],
      ["/etc", "File", "hostPath type check failed: /etc is not a file"],
      ["/etc", "Socket", "hostPath type check failed: /etc is not a socket file"],
      ["/etc", "CharDevice", "hostPath type check failed: /etc is not a character device"],
      ["/etc", "BlockDevice", "hostPath type check failed: /etc is not a block device"],
      ["/etc/app.conf", "DirectoryOrCreate", "hostPath type check failed: /etc/app.conf is not a directory"],
      ["/etc", "FileOrCreate", "hostPath type check failed: /etc is not a file"],
      ["/etc", "Pipe", "Pipe is an invalid volume type"],
    ];
    for (const [path, type, message] of cases) {
      await assert.rejects(setUp(fixture, path, type), { message }, `${type} ${path}`);
    }
    await assert.rejects(setUp(fixture, "/dev/missing", "BlockDevice"), {
      message: "stat /dev/missing: no such file or directory",
    });
  });

  it("accepts a block device for BlockDevice", async () => {
    const fixture = await simNode();
    fixture.world.disks.createDisk("disk-1", 1 << 20);
    const devicePath = await settle(fixture.clock, fixture.world.disks.attach("disk-1", fixture.host.nodeName));
    await setUp(fixture, devicePath, "BlockDevice");
    assert.equal((await fixture.host.stat(devicePath)).type, "blockDevice", "setUp leaves the device as it was");
    // The same path is refused for a type it is not, so the acceptance above is the type check passing.
    await assert.rejects(setUp(fixture, devicePath, "CharDevice"), {
      message: `hostPath type check failed: ${devicePath} is not a character device`,
    });
  });

  it("refuses paths that climb out with '..'", async () => {
    const fixture = await simNode();
    await assert.rejects(setUp(fixture, "/var/../etc", "Directory"), {
      message: "invalid HostPath `/var/../etc`: must not contain '..'",
    });
  });

  it("names the volume by its node path and has nothing to tear down", async () => {
    const fixture = await simNode();
    const plugin = new HostPathPlugin();
    plugin.init(fixture.volumeHost);
    const spec = VolumeSpec.fromVolume({ name: "logs", hostPath: { path: "/var/log" } });
    assert.equal(plugin.getVolumeName(spec), "/var/log");
    await fixture.host.mkdir("/var/log", 0o755);
    await settle(fixture.clock, plugin.newUnmounter().tearDown());
    assert.equal((await fixture.host.stat("/var/log")).type, "directory");
  });
});
