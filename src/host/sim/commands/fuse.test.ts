import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expectErrno } from "../../host-contract.ts";
import { newTestWorld } from "../testing/sim-test-world.ts";

const target = "/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~csi/pvc-1/mount";
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

async function fuseWorld(options: { systemd?: "pid1" | "not-pid1" | "absent" } = {}) {
  const { world, clock } = newTestWorld();
  const bucket = world.createBucket("photos");
  bucket.create(
    bucket.rootIno,
    "cat.jpg",
    { type: "file", mode: 0o644, data: new TextEncoder().encode("meow") },
    "/cat.jpg",
  );
  const node = world.addNode("node-a", options);
  await node.mkdir(target, 0o750, { recursive: true });
  return { world, clock, node };
}

describe("FUSE daemons", () => {
  it("a daemon started in the agent's scope serves its mount until the agent restarts, then ENOTCONN (seed 003)", async () => {
    const { node } = await fuseWorld();
    const daemon = await node.startDaemon({
      name: "s3fs:pvc-1",
      command: "s3fs",
      args: ["photos", target],
      scope: "agent",
    });
    assert.equal(await node.isProcessAlive(daemon.pid), true);
    assert.equal(text(await node.readFile(`${target}/cat.jpg`)), "meow");
    const entry = (await node.mountInfo()).find((mount) => mount.mountPoint === target);
    assert.equal(entry?.fsType, "fuse.s3fs");

    const killed = node.killAgentScope();
    assert.deepEqual(
      killed.map((process) => process.pid),
      [daemon.pid],
    );
    await expectErrno(node.stat(target), "ENOTCONN");
    await expectErrno(node.lstat(target), "ENOTCONN");
    await expectErrno(node.stat(`${target}/cat.jpg`), "ENOTCONN");
    await expectErrno(node.readdir(target), "ENOTCONN");
    await expectErrno(node.writeFile(`${target}/new.jpg`, "x"), "ENOTCONN");
    await assert.rejects(node.stat(target), /^HostError: stat .*\/mount: transport endpoint is not connected$/);
    assert.ok(
      (await node.mountInfo()).some((mount) => mount.mountPoint === target),
      "the dead mount stays listed",
    );
    assert.deepEqual(await node.readdir(target.replace(/\/mount$/, "")), ["mount"], "the parent still lists it");
    await expectErrno(node.rmdir(target), "EBUSY");
  });

  it("killAgentScope(name) kills only that agent's daemons: one plugin container restarts, the others' mounts keep working", async () => {
    const { node } = await fuseWorld();
    const other = "/mnt/other";
    await node.mkdir(other, 0o755, { recursive: true });
    const plugin = await node.startDaemon({
      name: "s3fs",
      command: "s3fs",
      args: ["photos", target],
      scope: "agent",
      agent: "csi-node/s3",
    });
    const kubelets = await node.startDaemon({
      name: "s3fs",
      command: "s3fs",
      args: ["photos", other],
      scope: "agent",
      agent: "kubelet",
    });
    assert.equal(plugin.agent, "csi-node/s3");
    assert.deepEqual(
      node.killAgentScope("csi-node/s3").map((process) => process.pid),
      [plugin.pid],
    );
    await expectErrno(node.stat(target), "ENOTCONN");
    assert.equal(text(await node.readFile(`${other}/cat.jpg`)), "meow");
    assert.deepEqual(
      node.killAgentScope().map((process) => process.pid),
      [kubelets.pid],
      "without a name, every agent-scope daemon dies",
    );
  });

  it("a dead FUSE mount can be unmounted, after which the directory is plain again", async () => {
    const { node } = await fuseWorld();
    await node.startDaemon({ name: "s3fs", command: "s3fs", args: ["photos", target], scope: "agent" });
    node.killAgentScope();
    const result = await node.run("umount", [target]);
    assert.equal(result.exitCode, 0, result.output);
    assert.deepEqual(await node.readdir(target), []);
    await node.rmdir(target);
  });

  it("a daemon forked by mount under systemd-run --scope survives the agent's restart", async () => {
    const { node } = await fuseWorld();
    const result = await node.run("systemd-run", [
      `--description=Kubernetes transient mount for ${target}`,
      "--scope",
      "--",
      "mount",
      "-t",
      "fuse.s3fs",
      "photos",
      target,
    ]);
    assert.equal(result.exitCode, 0, result.output);
    assert.match(result.output, /^Running scope as unit run-\d+\.scope\.\n$/);
    const [daemon] = await node.daemons();
    assert.equal(daemon?.scope, "own");
    assert.deepEqual(node.killAgentScope(), []);
    assert.equal(text(await node.readFile(`${target}/cat.jpg`)), "meow");
  });

  it("the same mount without systemd-run forks the daemon into the agent's scope, which a restart kills", async () => {
    const { node } = await fuseWorld();
    assert.equal((await node.run("mount", ["-t", "fuse.s3fs", "photos", target])).exitCode, 0);
    assert.equal((await node.daemons())[0]?.scope, "agent");
    node.killAgentScope();
    await expectErrno(node.stat(target), "ENOTCONN");
  });

  it("systemd-run fails when systemd is not PID 1 (a kubelet in a container), so no scope can be had", async () => {
    const { node } = await fuseWorld({ systemd: "not-pid1" });
    const probe = await node.run("systemd-run", ["--description=Kubernetes systemd probe", "--scope", "true"]);
    assert.equal(probe.exitCode, 1);
    assert.match(probe.output, /System has not been booted with systemd as init system \(PID 1\)/);
  });

  it("systemd-run is not installed at all on a node without systemd", async () => {
    const { node } = await fuseWorld({ systemd: "absent" });
    assert.equal(await node.hasCommand("systemd-run"), false);
    assert.equal((await node.run("systemd-run", ["--scope", "true"])).exitCode, 127);
  });

  it("unmounting a FUSE mount stops its daemon", async () => {
    const { node } = await fuseWorld();
    const daemon = await node.startDaemon({ name: "s3fs", command: "s3fs", args: ["photos", target], scope: "own" });
    assert.equal((await node.run("umount", [target])).exitCode, 0);
    assert.equal(await node.isProcessAlive(daemon.pid), false);
  });

  it("a FUSE daemon for a missing bucket exits at once and mounts nothing", async () => {
    const { node } = await fuseWorld();
    const daemon = await node.startDaemon({
      name: "s3fs",
      command: "s3fs",
      args: ["no-bucket", target],
      scope: "agent",
    });
    assert.equal(await node.isProcessAlive(daemon.pid), false);
    assert.equal(
      (await node.mountInfo()).some((mount) => mount.mountPoint === target),
      false,
    );
  });

  it("a daemon of a command the node lacks cannot start", async () => {
    const { node } = await fuseWorld();
    node.removeCommand("s3fs");
    await expectErrno(
      node.startDaemon({ name: "s3fs", command: "s3fs", args: ["photos", target], scope: "agent" }),
      "ENOENT",
    );
  });
});

describe("FUSE daemons: what the container runtime sees", () => {
  it("mkdir -p of a dead FUSE mount point fails with file exists (spec §8.3)", async () => {
    const { node } = await fuseWorld();
    await node.startDaemon({ name: "s3fs", command: "s3fs", args: ["photos", target], scope: "agent" });
    node.killAgentScope();
    await assert.rejects(node.mkdir(target, 0o755, { recursive: true }), /^HostError: mkdir .*\/mount: file exists$/);
  });
});
