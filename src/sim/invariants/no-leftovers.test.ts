import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../cmd/cluster.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import { runChecked } from "./checked-run.ts";
import { InvariantChecker } from "./checker.ts";
import { leftoverGraceMs } from "./constants.ts";
import { noLeftoversAfterTeardown } from "./no-leftovers.ts";

const minuteMs = 60_000;
const goneUid = "0a1b2c3d-0000-4000-8000-000000000001";
const podsDir = "/var/lib/kubelet/pods";

async function run(cluster: Cluster, command: string, args: string[]): Promise<string> {
  const result = await cluster.world.node("node-a").run(command, args);
  assert.equal(result.exitCode, 0, `${command} ${args.join(" ")}: ${result.output}`);
  return result.output.trim();
}

/** A tmpfs mount in a pod's volume directory, as a kubelet that forgot to unmount it would leave. */
async function leaveMount(cluster: Cluster, uid: string): Promise<string> {
  const path = `${podsDir}/${uid}/volumes/kubernetes.io~empty-dir/cache`;
  await cluster.world.node("node-a").mkdir(path, 0o750, { recursive: true });
  await run(cluster, "mount", ["-t", "tmpfs", "tmpfs", path]);
  return path;
}

const podOnNodeA = (uid: string) => `
apiVersion: v1
kind: Pod
metadata: { name: app, uid: ${uid} }
spec:
  nodeName: node-a
  containers: [{ name: app, image: busybox:1.36 }]
`;

describe("no-leftovers-after-teardown", () => {
  const startCluster = clusterPerTest();

  it("catches a mount, a loop device and a FUSE daemon no pod accounts for, once the grace has passed", async () => {
    const cluster = await startCluster({ seed: 2 });
    await cluster.addNode("node-a", { agent: "heartbeat" });
    const host = cluster.world.node("node-a");
    const checker = new InvariantChecker(cluster, [noLeftoversAfterTeardown]);
    const mount = await leaveMount(cluster, goneUid);
    const mapDir = `/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/pv-gone/dev`;
    await host.mkdir(mapDir, 0o750, { recursive: true });
    await host.createSparseFile(`${mapDir}/${goneUid}`, 2 ** 20);
    const loop = await run(cluster, "losetup", ["-f", "--show", `${mapDir}/${goneUid}`]);
    const fuseTarget = `${podsDir}/${goneUid}/volumes/kubernetes.io~csi/pv-gone/mount`;
    await host.mkdir(fuseTarget, 0o750, { recursive: true });
    const daemon = await host.startDaemon({
      name: "bindfs",
      command: "bindfs",
      args: ["/opt", fuseTarget],
      scope: "own",
    });

    assert.equal(await runChecked(cluster, checker, { forMs: leftoverGraceMs - 1_000 }), undefined, "within the grace");
    const report = await runChecked(cluster, checker, { forMs: minuteMs });
    assert.ok(report);
    assert.deepEqual(
      report.violations.map((violation) => violation.objects[0]),
      [`node/node-a:${mount}`, `node/node-a:${fuseTarget}`, `node/node-a:${loop}`, `node/node-a:pid ${daemon.pid}`],
    );
    assert.match(
      report.violations[0]?.message ?? "",
      new RegExp(
        `^mount ${mount} \\(tmpfs from tmpfs\\) on node-a is left behind: no running pod or volume on the node has accounted for it since \\S+, longer than the ${leftoverGraceMs} ms teardown grace$`,
      ),
    );
    assert.equal(
      report.violations[2]?.message.startsWith(`loop device ${loop} over ${mapDir}/${goneUid} on node-a`),
      true,
    );
    assert.ok(report.history.some((line) => line.endsWith(`node/node-a: mounted ${mount} (tmpfs from tmpfs)`)));
  });

  it("leaves alone what a pod on the node still accounts for, and what is held busy", async () => {
    const cluster = await startCluster({ seed: 2 });
    await cluster.addNode("node-a", { agent: "heartbeat" });
    const checker = new InvariantChecker(cluster, [noLeftoversAfterTeardown]);
    await cluster.apply(podOnNodeA(goneUid));
    const uid = (await cluster.get("Pod", "default", "app")).metadata?.uid ?? "";
    await leaveMount(cluster, uid);
    const busy = await leaveMount(cluster, goneUid);
    const hold = await cluster.world.node("node-a").holdMountBusy(busy);
    assert.equal(await runChecked(cluster, checker, { forMs: leftoverGraceMs + minuteMs }), undefined);
    hold.release();
    assert.equal(
      await runChecked(cluster, checker, { forMs: leftoverGraceMs - 1_000 }),
      undefined,
      "the grace starts again",
    );
    assert.deepEqual(
      (await runChecked(cluster, checker, { forMs: minuteMs }))?.violations.map((v) => v.objects[0]),
      [`node/node-a:${busy}`],
    );
  });

  it("does not count the time a node is not Ready", async () => {
    const cluster = await startCluster({ seed: 2 });
    await cluster.addNode("node-a", { agent: "heartbeat" });
    const checker = new InvariantChecker(cluster, [noLeftoversAfterTeardown]);
    const mount = await leaveMount(cluster, goneUid);
    cluster.stopHeartbeat("node-a");
    assert.equal(
      await runChecked(cluster, checker, { forMs: 2 * leftoverGraceMs }),
      undefined,
      "not Ready: cannot clean up",
    );
    cluster.startHeartbeat("node-a");
    assert.equal(await runChecked(cluster, checker, { forMs: leftoverGraceMs - 1_000 }), undefined);
    assert.equal(
      (await runChecked(cluster, checker, { forMs: minuteMs }))?.violations[0]?.objects[0],
      `node/node-a:${mount}`,
    );
  });

  it("keeps what a busy pod mount still uses — its global mount and device — for an hour, and names all three once it is free", async () => {
    const cluster = await startCluster({ seed: 2 });
    await cluster.addNode("node-a", { agent: "heartbeat" });
    const host = cluster.world.node("node-a");
    const checker = new InvariantChecker(cluster, [noLeftoversAfterTeardown]);
    const backing = "/var/lib/kvol-disks/pv-gone.img";
    await host.mkdir("/var/lib/kvol-disks", 0o750, { recursive: true });
    await host.createSparseFile(backing, 64 * 2 ** 20);
    const loop = await run(cluster, "losetup", ["-f", "--show", backing]);
    await run(cluster, "mkfs.ext4", [loop]);
    const globalMount = "/var/lib/kubelet/plugins/kvol.io/sim-disk/mounts/pv-gone";
    const podMount = `${podsDir}/${goneUid}/volumes/kvol.io~sim-disk/pv-gone`;
    for (const path of [globalMount, podMount]) await host.mkdir(path, 0o750, { recursive: true });
    await run(cluster, "mount", [loop, globalMount]);
    await run(cluster, "mount", ["--bind", globalMount, podMount]);
    const hold = await host.holdMountBusy(podMount);

    assert.equal(
      await runChecked(cluster, checker, { forMs: 60 * minuteMs }),
      undefined,
      "the pod's mount cannot be torn down, so its global mount and device stay: no leak",
    );
    hold.release();
    assert.equal(await runChecked(cluster, checker, { forMs: leftoverGraceMs - 1_000 }), undefined, "the grace");
    assert.deepEqual(
      (await runChecked(cluster, checker, { forMs: minuteMs }))?.violations.map((v) => v.objects[0]),
      [`node/node-a:${globalMount}`, `node/node-a:${podMount}`, `node/node-a:${loop}`],
    );
  });
});
