import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolume } from "../api/objects.ts";
import { parseServerArguments } from "../cli/server-command.ts";
import { type CommandResult, type FileStat, type Host, HostError } from "../host/host.ts";
import { realDiskFencing, serverDiskFencer } from "./real-disk-fencing.ts";

/** A machine as device-mapper's probe sees it: dmsetup on PATH or not, the kernel's driver or not. */
function machine(options: { dmsetup: boolean; kernelDriver: boolean }): Host {
  const partial: Pick<Host, "hasCommand" | "stat" | "run"> = {
    hasCommand: async (name) => name === "dmsetup" && options.dmsetup,
    stat: async (path) => {
      if (path === "/sys/class/misc/device-mapper" && options.kernelDriver) return { type: "directory" } as FileStat;
      throw new HostError("ENOENT", "stat", path);
    },
    run: async (): Promise<CommandResult> =>
      options.kernelDriver
        ? { exitCode: 0, output: "Library version:   1.02.185\nDriver version:    4.48.0\n" }
        : { exitCode: 1, output: "Library version:   1.02.185\n/dev/mapper/control: open failed: No such device\n" },
  };
  return partial as Host;
}

const diskVolume: PersistentVolume = {
  metadata: { name: "pvc-1" },
  spec: { csi: { driver: "disk.csi.kvol.io", volumeHandle: "pvc-1" } },
};

describe("kvol up --host linux: the real disks' fencing", () => {
  it("without the kernel's device-mapper: plain loop disks, and a fencer that refuses saying the kernel lacks it", async () => {
    const fencing = await realDiskFencing(machine({ dmsetup: true, kernelDriver: false }), 15_000);
    const kernelGap =
      "this kernel has no device-mapper driver (no /sys/class/misc/device-mapper; modprobe dm_mod loads it where the kernel has the module)";
    assert.equal(fencing.fenceable, false);
    assert.equal(fencing.unavailable, kernelGap);
    const [fencer] = fencing.fencers("/data");
    assert.equal(fencer?.name, "disk.csi.kvol.io (device-mapper)");
    assert.equal(fencer?.covers(diskVolume), true);
    assert.equal(await fencer?.unavailable(), kernelGap);
  });

  it("without dmsetup: says which package to install", async () => {
    const fencing = await realDiskFencing(machine({ dmsetup: false, kernelDriver: true }), 15_000);
    assert.equal(fencing.fenceable, false);
    assert.equal(fencing.unavailable, "dmsetup is not on PATH (Debian and Ubuntu: apt-get install dmsetup)");
  });

  it("with device-mapper and --fence-after: disks attach through it, and the fencer can fence", async () => {
    const fencing = await realDiskFencing(machine({ dmsetup: true, kernelDriver: true }), 15_000);
    assert.equal(fencing.fenceable, true);
    assert.equal(fencing.unavailable, undefined);
    assert.equal(await fencing.fencers("/data")[0]?.unavailable(), undefined);
  });

  it("with device-mapper but no --fence-after: plain loop disks, and a StorageClass's fencing is refused saying why", async () => {
    const fencing = await realDiskFencing(machine({ dmsetup: true, kernelDriver: true }), undefined);
    assert.equal(fencing.fenceable, false);
    assert.equal(fencing.unavailable, undefined);
    assert.equal(
      await fencing.fencers("/data")[0]?.unavailable(),
      "its disks are attached without device-mapper (kvol up --host linux attaches disks through device-mapper only when started with --fence-after)",
    );
  });
});

describe("kvol server --fence-disks-dir: the disks of a controller on the server's machine", () => {
  it("takes an absolute disks directory and gives the node-fencing controller their device-mapper fencer", () => {
    const parsed = parseServerArguments(["--ephemeral", "--fence-disks-dir", "/var/lib/kvol/csi-disk"]);
    assert.ok(!("help" in parsed));
    assert.deepEqual(
      parsed.fencers?.("/data").map((fencer) => fencer.name),
      ["disk.csi.kvol.io (device-mapper)"],
    );
    assert.equal("fencers" in parseServerArguments(["--ephemeral"]), false);
    assert.throws(
      () => parseServerArguments(["--ephemeral", "--fence-disks-dir", "disks"]),
      /^Error: --fence-disks-dir must be an absolute path, got "disks"$/,
    );
  });

  it("fences where the kernel has device-mapper, and refuses with the kernel's reason where it has not", async () => {
    assert.equal(
      await serverDiskFencer(machine({ dmsetup: true, kernelDriver: true }), "/disks").unavailable(),
      undefined,
    );
    assert.equal(
      await serverDiskFencer(machine({ dmsetup: true, kernelDriver: false }), "/disks").unavailable(),
      "this kernel has no device-mapper driver (no /sys/class/misc/device-mapper; modprobe dm_mod loads it where the kernel has the module)",
    );
  });
});
