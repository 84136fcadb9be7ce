import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolume } from "../api/objects.ts";
import { parseServerArguments } from "../cli/server-command.ts";
import { type CommandResult, type FileStat, type Host, HostError } from "../host/host.ts";
import { realDiskFencing, serverDiskFencer } from "./real-disk-fencing.ts";

/**
 * A machine as the loop fence's probe sees it: losetup and perl on PATH or not, the loop driver or
 * not, and a kernel that gives a loop device moved past its file's end a size of 0 or (broken) not.
 */
function machine(options: { tools: readonly string[]; loopDriver: boolean; offsetEmptiesDevice?: boolean }): Host {
  let offset = "0";
  const ok: CommandResult = { exitCode: 0, output: "" };
  const partial: Pick<Host, "hasCommand" | "stat" | "run" | "readFile" | "createSparseFile" | "unlink" | "mkdir"> = {
    hasCommand: async (name) => options.tools.includes(name),
    stat: async (path) => {
      if (path === "/dev/loop-control" && options.loopDriver) return { type: "charDevice" } as FileStat;
      throw new HostError("ENOENT", "stat", path);
    },
    run: async (command, args): Promise<CommandResult> => {
      if (command === "losetup" && args[0] === "-f") return { exitCode: 0, output: "/dev/loop9\n" };
      if (command === "perl") offset = args[3] ?? "";
      return ok;
    },
    readFile: async (path) => {
      const emptied = offset !== "0" && options.offsetEmptiesDevice !== false;
      if (path === "/sys/block/loop9/size") return new TextEncoder().encode(emptied ? "0\n" : "2048\n");
      if (path === "/sys/block/loop9/loop/offset") return new TextEncoder().encode(`${offset}\n`);
      throw new HostError("ENOENT", "open", path);
    },
    createSparseFile: async () => undefined,
    unlink: async () => undefined,
    mkdir: async () => undefined,
  };
  return partial as Host;
}

const everything = { tools: ["losetup", "perl"], loopDriver: true } as const;

const diskVolume: PersistentVolume = {
  metadata: { name: "pvc-1" },
  spec: { csi: { driver: "disk.csi.kvol.io", volumeHandle: "pvc-1" } },
};

describe("kvol up --host linux: the real disks' fencing", () => {
  it("without perl: a shared loop device per disk, and a fencer that refuses saying which package to install", async () => {
    const fencing = await realDiskFencing(machine({ tools: ["losetup"], loopDriver: true }), 15_000, "/probe");
    const gap = "perl is not on PATH (Debian and Ubuntu: apt-get install perl-base)";
    assert.equal(fencing.fenceable, false);
    assert.equal(fencing.unavailable, gap);
    const [fencer] = fencing.fencers("/data");
    assert.equal(fencer?.name, "disk.csi.kvol.io (loop device)");
    assert.equal(fencer?.covers(diskVolume), true);
    assert.equal(await fencer?.unavailable(), gap);
  });

  it("without the loop driver: says the kernel lacks it", async () => {
    const fencing = await realDiskFencing(machine({ ...everything, loopDriver: false }), 15_000, "/probe");
    assert.equal(fencing.fenceable, false);
    assert.equal(fencing.unavailable, "this kernel has no loop driver (no /dev/loop-control; modprobe loop)");
  });

  it("where the probe's loop device keeps its size past its file's end: refuses with what was read back", async () => {
    const fencing = await realDiskFencing(machine({ ...everything, offsetEmptiesDevice: false }), 15_000, "/probe");
    assert.equal(fencing.fenceable, false);
    assert.equal(
      fencing.unavailable,
      "a probe loop device /dev/loop9 whose offset was moved past its file's end still has 2048 sectors at offset 4611686018427387904",
    );
  });

  it("with a probe that fences and --fence-after: a loop device per node, and the fencer can fence", async () => {
    const fencing = await realDiskFencing(machine(everything), 15_000, "/probe");
    assert.equal(fencing.fenceable, true);
    assert.equal(fencing.unavailable, undefined);
    assert.equal(await fencing.fencers("/data")[0]?.unavailable(), undefined);
  });

  it("without --fence-after: no probe, shared loop devices, and a StorageClass's fencing is refused saying why", async () => {
    const fencing = await realDiskFencing(machine(everything), undefined, "/probe");
    assert.equal(fencing.fenceable, false);
    assert.equal(fencing.unavailable, undefined);
    assert.equal(
      await fencing.fencers("/data")[0]?.unavailable(),
      "its disks are attached through one loop device shared by every node (kvol up --host linux attaches a loop device per node only when started with --fence-after)",
    );
  });
});

describe("kvol server --fence-disks-dir: the disks of a controller on the server's machine", () => {
  it("takes an absolute disks directory and gives the node-fencing controller their loop-device fencer", () => {
    const parsed = parseServerArguments(["--ephemeral", "--fence-disks-dir", "/var/lib/kvol/csi-disk"]);
    assert.ok(!("help" in parsed));
    assert.deepEqual(
      parsed.fencers?.("/data").map((fencer) => fencer.name),
      ["disk.csi.kvol.io (loop device)"],
    );
    assert.equal("fencers" in parseServerArguments(["--ephemeral"]), false);
    assert.throws(
      () => parseServerArguments(["--ephemeral", "--fence-disks-dir", "disks"]),
      /^Error: --fence-disks-dir must be an absolute path, got "disks"$/,
    );
  });

  it("fences where the probe fences, and refuses with the machine's reason where it does not", async () => {
    assert.equal(await serverDiskFencer(machine(everything), "/disks").unavailable(), undefined);
    assert.equal(
      await serverDiskFencer(machine({ ...everything, loopDriver: false }), "/disks").unavailable(),
      "this kernel has no loop driver (no /dev/loop-control; modprobe loop)",
    );
  });
});
