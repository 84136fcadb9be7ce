import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newTestWorld } from "../host/sim/testing/sim-test-world.ts";
import { ProcessLifetime } from "./process-lifetime.ts";

describe("ProcessLifetime", () => {
  it("lets a mount in flight finish on the node, but its result never reaches the killed process", async () => {
    const { world, clock } = newTestWorld();
    const node = world.addNode("node-a");
    node.setCommandLatency("mount", 5_000);
    await node.mkdir("/mnt/data", 0o755);
    const lifetime = new ProcessLifetime("kubelet");
    const host = lifetime.host(node);
    let settled = false;
    void host.run("mount", ["-t", "tmpfs", "tmpfs", "/mnt/data"]).finally(() => {
      settled = true;
    });
    await clock.advanceBy(1_000);
    lifetime.end();
    await clock.advanceBy(10_000);
    assert.ok(
      (await node.mountInfo()).some((mount) => mount.mountPoint === "/mnt/data"),
      "the mount completed on the node",
    );
    assert.equal(settled, false, "the dead process never sees the result");

    let started = false;
    void host.mkdir("/mnt/other", 0o755).finally(() => {
      started = true;
    });
    await clock.advanceBy(1_000);
    assert.equal(started, false);
    await assert.rejects(node.stat("/mnt/other"), /no such file or directory/, "a call after the end never starts");
  });

  it("stops the process's sleeps, timers and loops, and only its own", async () => {
    const { clock } = newTestWorld();
    const lifetime = new ProcessLifetime("kubelet");
    const processClock = lifetime.clock(clock);
    const fired: string[] = [];
    void processClock.sleep(2_000).then(() => fired.push("sleep"));
    processClock.setTimer(2_000, () => fired.push("timer"));
    processClock.setQuietTimer(2_000, () => fired.push("quiet timer") < 0);
    processClock.every(1_000, () => {
      fired.push("loop");
    });
    clock.setTimer(2_000, () => fired.push("someone else's timer"));
    await clock.advanceBy(1_500);
    assert.deepEqual(fired, ["loop", "loop"]);
    lifetime.end();
    await clock.advanceBy(5_000);
    assert.deepEqual(fired, ["loop", "loop", "someone else's timer"]);
    assert.equal(processClock.now(), clock.now(), "the time itself is the node's");
  });

  it("names its daemons: a FUSE mount it runs without systemd-run is the kubelet's, one under systemd-run --scope is no one's", async () => {
    const { world } = newTestWorld();
    world.createBucket("photos");
    const node = world.addNode("node-a");
    await node.mkdir("/mnt/own", 0o755);
    await node.mkdir("/mnt/scoped", 0o755);
    const host = new ProcessLifetime("kubelet").host(node);
    assert.equal((await host.run("s3fs", ["photos", "/mnt/own"])).exitCode, 0);
    const scoped = await host.run("systemd-run", [
      "--description=test",
      "--scope",
      "--",
      "s3fs",
      "photos",
      "/mnt/scoped",
    ]);
    assert.equal(scoped.exitCode, 0, scoped.output);
    const daemons = await node.daemons();
    assert.deepEqual(
      daemons.map((daemon) => [daemon.args[1], daemon.scope, daemon.agent]),
      [
        ["/mnt/own", "agent", "kubelet"],
        ["/mnt/scoped", "own", undefined],
      ],
    );
  });
});
