import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newTestApi, testPod } from "../../../api/client/testing/test-api.ts";
import { expectErrno } from "../../../host/host-contract.ts";
import type { SimHost } from "../../../host/sim/sim-host.ts";
import { newTestWorld } from "../../../host/sim/testing/sim-test-world.ts";
import { connectCsiInProcess } from "../../grpc/in-process.ts";
import type { CsiClient } from "../../grpc/services.ts";
import { fuseDriverName } from "../common/constants.ts";
import {
  createRequest,
  mountAt,
  mountCapability,
  publishRequest,
  rejectsWithCode,
  stageRequest,
  stagingPathOf,
  targetPathOf,
  text,
} from "../testing/driver-test-support.ts";
import { createFuseDriver, type FuseDriver, type FuseDriverOptions } from "./fuse-driver.ts";
import { recoveryApiFromClient } from "./recovery-api.ts";

const stateDir = "/var/lib/kvol/csi-fuse";
const agent = `csi-node/${fuseDriverName}`;
const readWriteMany = mountCapability({ mode: "MULTI_NODE_MULTI_WRITER" });

interface Cluster {
  host: SimHost;
  driver: FuseDriver;
  client: CsiClient;
  volumeId: string;
  podUid: string;
  staging: string;
  target: string;
}

/** One node, one fuse volume bound to claim `data` as PV `pv-1`, and pod `web` on the node using it. */
async function setUp(options: Partial<FuseDriverOptions> = {}): Promise<Cluster> {
  const { world, clock } = newTestWorld();
  const host = world.addNode("node-a");
  const api = newTestApi();
  const driver = createFuseDriver({
    host,
    clock,
    nodeId: "node-a",
    stateDir,
    api: recoveryApiFromClient(api.client),
    ...options,
  });
  const client = connectCsiInProcess(driver);
  const { volume } = await client.createVolume(createRequest("pvc-1", { volumeCapabilities: [readWriteMany] }));
  const volumeId = volume?.volumeId ?? "";
  await api.client.persistentVolumes.create({
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name: "pv-1" },
    spec: {
      capacity: { storage: "10Mi" },
      accessModes: ["ReadWriteMany"],
      persistentVolumeReclaimPolicy: "Delete",
      csi: { driver: fuseDriverName, volumeHandle: volumeId },
      claimRef: { namespace: "default", name: "data" },
    },
  });
  await api.client.persistentVolumeClaims.create({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { namespace: "default", name: "data" },
    spec: { accessModes: ["ReadWriteMany"], resources: { requests: { storage: "10Mi" } }, volumeName: "pv-1" },
  });
  const pod = await api.client.pods.create(testPod("default", "web", "node-a", ["data"]));
  await api.client.pods.create(testPod("default", "elsewhere", "node-b", ["data"]));
  const podUid = pod.metadata?.uid ?? "";
  return {
    host,
    driver,
    client,
    volumeId,
    podUid,
    staging: stagingPathOf(fuseDriverName, volumeId),
    target: targetPathOf(podUid, "pv-1"),
  };
}

async function stageAndPublish(cluster: Cluster, readonly = false): Promise<void> {
  const { client, volumeId, staging, target } = cluster;
  if (staging !== "") await client.nodeStageVolume(stageRequest(volumeId, staging, readWriteMany));
  await client.nodePublishVolume(
    publishRequest(volumeId, staging, target, { volumeCapability: readWriteMany, readonly }),
  );
}

describe("fuse.csi.kvol.io: volumes served by FUSE daemons in the plugin's scope", () => {
  it("stage starts a daemon mounting fuse.kvolfs; publish binds it into the pod; writes reach the volume", async () => {
    const cluster = await setUp();
    const { host, staging, target, volumeId } = cluster;
    await stageAndPublish(cluster);
    assert.equal((await mountAt(host, staging))?.fsType, "fuse.kvolfs");
    assert.equal((await mountAt(host, target))?.fsType, "fuse.kvolfs");
    const daemons = await host.daemons();
    assert.deepEqual(
      daemons.map((daemon) => [daemon.command, daemon.scope, daemon.agent]),
      [["kvolfs", "agent", agent]],
    );
    await host.writeFile(`${target}/note.txt`, "kept");
    assert.equal(text(await host.readFile(`${stateDir}/${volumeId}/note.txt`)), "kept");
    await stageAndPublish(cluster);
    assert.equal((await host.daemons()).length, 1, "a repeated stage starts no second daemon");
  });

  it("unpublish and unstage unmount, and the daemon exits with its last mount", async () => {
    const cluster = await setUp();
    const { host, client, staging, target, volumeId } = cluster;
    await stageAndPublish(cluster);
    await rejectsWithCode(client.deleteVolume({ volumeId, secrets: {} }), "FailedPrecondition", /mounted at/);
    await client.nodeUnpublishVolume({ volumeId, targetPath: target });
    assert.equal(await mountAt(host, target), undefined);
    assert.equal((await host.daemons()).length, 1, "the staging mount still needs it");
    await client.nodeUnstageVolume({ volumeId, stagingTargetPath: staging });
    assert.equal(await mountAt(host, staging), undefined);
    assert.deepEqual(await host.daemons(), []);
    await client.deleteVolume({ volumeId, secrets: {} });
  });

  it("a killed daemon leaves its mounts in place answering ENOTCONN, and stats report the volume abnormal (seed 003)", async () => {
    const cluster = await setUp();
    const { host, client, staging, target, volumeId } = cluster;
    await stageAndPublish(cluster);
    const killed = host.killAgentScope(agent);
    assert.equal(killed.length, 1);
    await expectErrno(host.stat(target), "ENOTCONN");
    await expectErrno(host.readdir(staging), "ENOTCONN");
    assert.ok(await mountAt(host, target), "the kernel mount stays listed");
    const stats = await client.nodeGetVolumeStats({ volumeId, volumePath: target, stagingTargetPath: staging });
    assert.equal(stats.volumeCondition?.abnormal, true);
    assert.match(stats.volumeCondition?.message ?? "", /transport endpoint is not connected/);
  });

  it("a stopped plugin answers Unavailable; killing its daemons spares other agents'", async () => {
    const cluster = await setUp();
    const { host, client, driver } = cluster;
    await stageAndPublish(cluster);
    await host.mkdir("/mnt/other", 0o755, { recursive: true });
    const other = await host.startDaemon({
      name: "other",
      command: "kvolfs",
      args: ["-f", "/var", "/mnt/other"],
      scope: "agent",
      agent: "kubelet",
    });
    await driver.stop();
    await rejectsWithCode(client.nodeGetInfo({}), "Unavailable", /node plugin is not running/);
    assert.deepEqual(
      (await host.daemons()).map((daemon) => daemon.pid),
      [other.pid],
    );
  });
});

describe("fuse.csi.kvol.io: node plugin restart", () => {
  it("with reestablishOnStart off, the mounts stay dead after the restart (Kubernetes' behaviour)", async () => {
    const cluster = await setUp({ reestablishOnStart: false });
    const { host, driver, target, staging } = cluster;
    await stageAndPublish(cluster);
    await driver.stop();
    await driver.start();
    await expectErrno(host.stat(target), "ENOTCONN");
    await expectErrno(host.stat(staging), "ENOTCONN");
    assert.deepEqual(await host.daemons(), []);
    assert.equal(driver.lastReestablishReport, undefined);
  });

  it("with reestablishOnStart on, a fresh daemon serves the staging path and the pod's path answers again", async () => {
    const cluster = await setUp();
    const { host, driver, target, staging } = cluster;
    await stageAndPublish(cluster);
    await host.writeFile(`${target}/before.txt`, "written before the restart");
    await driver.stop();
    await expectErrno(host.stat(target), "ENOTCONN");
    await driver.start();
    assert.deepEqual(driver.lastReestablishReport, { repaired: [staging, target], failed: [] });
    assert.equal(text(await host.readFile(`${target}/before.txt`)), "written before the restart");
    const daemons = await host.daemons();
    assert.equal(daemons.length, 1);
    assert.equal(daemons[0]?.agent, agent);
    assert.equal(
      (await host.mountInfo()).filter((mount) => mount.mountPoint === target).length,
      1,
      "the dead mount was unmounted, not covered",
    );
    await driver.start();
    assert.deepEqual(driver.lastReestablishReport, { repaired: [], failed: [] }, "a second start finds nothing to do");
  });

  it("a crash (daemons killed without stop) is re-established the same way, read-only mounts staying read-only", async () => {
    const cluster = await setUp();
    const { host, driver, target } = cluster;
    await stageAndPublish(cluster, true);
    host.killAgentScope(agent);
    await driver.start();
    assert.ok((await mountAt(host, target))?.options.includes("ro"));
    await expectErrno(host.writeFile(`${target}/x`, "no"), "EROFS");
  });

  it("without staging, each publish has its own daemon, and a restart re-establishes it on the pod's path", async () => {
    const cluster = { ...(await setUp({ stageUnstage: false })), staging: "" };
    const { host, driver, client, target } = cluster;
    assert.equal(
      (await client.nodeGetCapabilities({})).capabilities.some((c) => c.rpc?.type === "STAGE_UNSTAGE_VOLUME"),
      false,
    );
    await stageAndPublish(cluster);
    assert.equal((await mountAt(host, target))?.fsType, "fuse.kvolfs");
    await driver.stop();
    await driver.start();
    assert.deepEqual(driver.lastReestablishReport, { repaired: [target], failed: [] });
    assert.deepEqual(await host.readdir(target), []);
  });

  it("the kubelet's part: NodePublish again on a dead target repairs the staging daemon and the pod's mount", async () => {
    const cluster = await setUp({ reestablishOnStart: false });
    const { host, driver, target } = cluster;
    await stageAndPublish(cluster);
    await driver.stop();
    await driver.start();
    await expectErrno(host.stat(target), "ENOTCONN");
    await cluster.client.nodePublishVolume(
      publishRequest(cluster.volumeId, cluster.staging, target, { volumeCapability: readWriteMany }),
    );
    assert.deepEqual(await host.readdir(target), []);
    assert.equal((await host.daemons()).length, 1);
  });

  it("NodeUnpublish of a dead target unmounts it without a stat and removes the directory (spec §8.3 step 5)", async () => {
    const cluster = await setUp({ reestablishOnStart: false });
    const { host, driver, client, target, staging, volumeId } = cluster;
    await stageAndPublish(cluster);
    await driver.stop();
    await driver.start();
    await client.nodeUnpublishVolume({ volumeId, targetPath: target });
    await expectErrno(host.stat(target), "ENOENT");
    await client.nodeUnstageVolume({ volumeId, stagingTargetPath: staging });
    assert.equal(await mountAt(host, staging), undefined);
  });

  it("without an API client, start() warns that nothing can be re-established", async () => {
    const warnings: string[] = [];
    const { world, clock } = newTestWorld();
    const host = world.addNode("node-a");
    const driver = createFuseDriver({ host, clock, nodeId: "node-a", onWarning: (message) => warnings.push(message) });
    await driver.start();
    assert.match(warnings.join("\n"), /no API client/);
  });
});
