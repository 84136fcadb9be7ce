/** The Mounter on simulated nodes: the seed incidents' exact texts and the daemon-scope stories. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expectErrno } from "../host-contract.ts";
import type { SimNodeOptions } from "../sim/sim-world.ts";
import { newTestWorld } from "../sim/testing/sim-test-world.ts";
import { cleanupMountPoint } from "./cleanup-mount-point.ts";
import type { MountLogger } from "./logger.ts";
import { MountCommandError, Mounter } from "./mounter.ts";

const podDir = "/var/lib/kubelet/pods/cddc94e7-8033-4150-bed5-d141e3b71e49/volumes/kubernetes.io~nfs/nfs211";
const nfsSource = "10.20.172.211:/nfs";
const missingHelperOutput =
  "mount: wrong fs type, bad option, bad superblock on 10.20.172.211:/nfs,\n" +
  "       missing codepage or helper program, or other error\n" +
  "       (for several filesystems (e.g. nfs, cifs) you might\n" +
  "       need a /sbin/mount.<type> helper program)\n" +
  "\n" +
  "       In some cases useful info is found in syslog - try\n" +
  "       dmesg | tail or so.\n";

async function nfsNode(options: SimNodeOptions = {}) {
  const { world, clock } = newTestWorld();
  const server = world.addNfsServer("10.20.172.211");
  server.addExport("/nfs");
  const node = world.addNode("node1", options);
  await node.mkdir(podDir, 0o750, { recursive: true });
  return { world, clock, server, node };
}

async function mountFailure(mounter: Mounter, ...args: Parameters<Mounter["mount"]>): Promise<MountCommandError> {
  const failure = await mounter.mount(...args).then(
    () => assert.fail("the mount succeeded"),
    (error: unknown) => error,
  );
  assert.ok(failure instanceof MountCommandError, String(failure));
  return failure;
}

describe("Mounter on a simulated node", () => {
  it("a node with systemd but without mount.nfs fails exactly as in seed 002", async () => {
    const { node } = await nfsNode({ withoutCommands: ["mount.nfs", "mount.nfs4"] });
    const failure = await mountFailure(new Mounter(node), nfsSource, podDir, "nfs", []);
    const scopeLine = /^Running scope as unit run-\d+\.scope\.\n/;
    assert.match(failure.output, scopeLine);
    assert.equal(
      failure.message,
      "mount failed: exit status 32\n" +
        "Mounting command: systemd-run\n" +
        `Mounting arguments: --description=Kubernetes transient mount for ${podDir} --scope -- mount -t nfs ${nfsSource} ${podDir}\n` +
        `Output: ${failure.output.match(scopeLine)?.[0]}${missingHelperOutput}`,
    );
  });

  it("a kubelet in a container (systemd not PID 1) probes once and runs mount(8) directly", async () => {
    const { node } = await nfsNode({ systemd: "not-pid1", withoutCommands: ["mount.nfs", "mount.nfs4"] });
    const info: string[] = [];
    const logger: MountLogger = { info: (message) => info.push(message), warning: () => undefined };
    const mounter = new Mounter(node, { logger });
    const failure = await mountFailure(mounter, nfsSource, podDir, "nfs", []);
    assert.equal(
      failure.message,
      "mount failed: exit status 32\nMounting command: mount\n" +
        `Mounting arguments: -t nfs ${nfsSource} ${podDir}\nOutput: ${missingHelperOutput}`,
    );
    await mountFailure(mounter, nfsSource, podDir, "nfs", ["ro"]);
    assert.equal(info.filter((line) => line.startsWith("Cannot run systemd-run")).length, 1, "probed once");
  });

  it("the WithoutSystemd variant never adds the scope, and installing nfs-utils makes the mount work", async () => {
    const { node } = await nfsNode({ withoutCommands: ["mount.nfs", "mount.nfs4"] });
    const mounter = new Mounter(node);
    const failure = await mountFailure(mounter, nfsSource, podDir, "nfs", [], { withSystemd: false });
    assert.equal(failure.command, "mount");
    node.installCommand("mount.nfs");
    await mounter.mount(nfsSource, podDir, "nfs", [], { withSystemd: false });
    assert.match((await node.mountInfo()).find((entry) => entry.mountPoint === podDir)?.fsType ?? "", /^nfs4?$/);
    assert.equal(await mounter.isLikelyNotMountPoint(podDir), false);
  });

  it("a node without mount(8) reports Go's exec error", async () => {
    const { node } = await nfsNode({ systemd: "absent", withoutCommands: ["mount"] });
    const failure = await mountFailure(new Mounter(node), nfsSource, podDir, "nfs", []);
    assert.match(
      failure.message,
      /^mount failed: exec: "mount": executable file not found in \$PATH\nMounting command: mount\n/,
    );
  });

  it("unmountWithForce gets past an NFS server that stopped answering", async () => {
    const { node, server, clock } = await nfsNode();
    const mounter = new Mounter(node);
    await mounter.mount(nfsSource, podDir, "nfs", [], { withSystemd: false });
    server.setReachable(false);
    const unmounted = mounter.unmountWithForce(podDir, 60_000);
    await clock.advanceBy(60_000);
    await unmounted;
    assert.equal(
      (await node.mountInfo()).some((entry) => entry.mountPoint === podDir),
      false,
    );
  });
});

describe("FUSE mounts and the systemd scope (spec §7, §8.3)", () => {
  const target = "/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~csi/pvc-1/mount";

  async function fuseNode() {
    const { world } = newTestWorld();
    const bucket = world.createBucket("photos");
    bucket.create(
      bucket.rootIno,
      "cat.jpg",
      { type: "file", mode: 0o644, data: new TextEncoder().encode("meow") },
      "/cat.jpg",
    );
    const node = world.addNode("node-a");
    await node.mkdir(target, 0o750, { recursive: true });
    return node;
  }

  it("a FUSE daemon forked through the transient scope survives the agent's restart", async () => {
    const node = await fuseNode();
    await new Mounter(node).mount("photos", target, "fuse.s3fs", []);
    assert.deepEqual(node.killAgentScope(), []);
    assert.equal(new TextDecoder().decode(await node.readFile(`${target}/cat.jpg`)), "meow");
  });

  it("without the scope the restart kills the daemon; CleanupMountPoint still clears the dead mount", async () => {
    const node = await fuseNode();
    const mounter = new Mounter(node);
    await mounter.mount("photos", target, "fuse.s3fs", [], { withSystemd: false });
    assert.equal(node.killAgentScope().length, 1);
    await expectErrno(node.stat(target), "ENOTCONN");
    await cleanupMountPoint(node, mounter, target, false);
    await expectErrno(node.stat(target), "ENOENT");
    assert.equal(
      (await node.mountInfo()).some((entry) => entry.mountPoint === target),
      false,
    );
  });
});
