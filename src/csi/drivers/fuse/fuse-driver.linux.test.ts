/**
 * fuse.csi.kvol.io on a real node (LinuxHost): volumes served by real FUSE daemons — bindfs over a
 * directory per volume, and s3fs over a prefix of a bucket in an S3-compatible store started for
 * the test on the loopback interface. Inside a private mount namespace, so nothing mounted here is
 * seen outside or outlives the test. Needs root, /dev/fuse, bindfs and s3fs: outside CI a missing
 * one skips with its reason; under CI=true it fails.
 */
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { PersistentVolume, PersistentVolumeClaim, Pod } from "../../../api/objects.ts";
import { expectErrno } from "../../../host/host-contract.ts";
import { LinuxHost } from "../../../host/linux/linux-host.ts";
import { readMountInfo } from "../../../host/linux/mount-info-reader.ts";
import { inPrivateMountNamespace } from "../../../host/linux/private-mount-namespace.ts";
import { whyRealFuseCannotRun } from "../../../host/linux/real-fuse-requirements.ts";
import { makeScratchDir, removeScratchDir } from "../../../host/linux/scratch-dir.ts";
import { RealClock } from "../../../runtime/real-clock.ts";
import { requireOrSkip } from "../../../testing/requirements.ts";
import { csiPublishTargetPath, csiStagingPath } from "../../../volume/paths.ts";
import { connectCsiInProcess } from "../../grpc/in-process.ts";
import type { CsiClient } from "../../grpc/services.ts";
import { fuseDriverName } from "../common/constants.ts";
import { createRequest, mountCapability, publishRequest, stageRequest } from "../testing/driver-test-support.ts";
import { createFuseDriver, type FuseDriver, type FuseDriverOptions } from "./fuse-driver.ts";
import type { FuseRecoveryApi } from "./recovery-api.ts";
import { type LocalS3Server, startLocalS3Server } from "./testing/local-s3-server.ts";

const clock = new RealClock();
const nodeName = "node-1";
const podUid = "uid-1";
const pvName = "pv-1";
const bucket = "volumes";
const readWriteMany = mountCapability({ mode: "MULTI_NODE_MULTI_WRITER" });

interface Node {
  scratch: string;
  host: LinuxHost;
  driver: FuseDriver;
  client: CsiClient;
  volumeId: string;
  staging: string;
  target: string;
  warnings: string[];
}

/** What the API says: PV `pv-1` of the volume, bound to claim `data`, which pod `uid-1` on this node uses. */
function apiServing(volumeId: string): FuseRecoveryApi {
  const pv: PersistentVolume = {
    metadata: { name: pvName },
    spec: { csi: { driver: fuseDriverName, volumeHandle: volumeId }, claimRef: { namespace: "default", name: "data" } },
  };
  const claim: PersistentVolumeClaim = {
    metadata: { namespace: "default", name: "data" },
    spec: { volumeName: pvName },
  };
  const pod: Pod = {
    metadata: { namespace: "default", name: "web", uid: podUid },
    spec: {
      nodeName,
      containers: [{ name: "main", image: "busybox" }],
      volumes: [{ name: "v", persistentVolumeClaim: { claimName: "data" } }],
    },
  };
  return {
    listPersistentVolumes: async () => [pv],
    listPersistentVolumeClaims: async () => [claim],
    listPodsOnNode: async (name) => (name === nodeName ? [pod] : []),
  };
}

async function startNode(scratch: string, options: Partial<FuseDriverOptions>): Promise<Node> {
  const warnings: string[] = [];
  const host = new LinuxHost({ nodeName, onWarning: (message) => warnings.push(message) });
  const kubeletRootDir = join(scratch, "kubelet");
  let volumeId = "";
  const driver = createFuseDriver({
    host,
    clock,
    nodeId: nodeName,
    stateDir: join(scratch, "state"),
    kubeletRootDir,
    // Read only at start(), once the volume exists.
    api: {
      listPersistentVolumes: () => apiServing(volumeId).listPersistentVolumes(),
      listPersistentVolumeClaims: () => apiServing(volumeId).listPersistentVolumeClaims(),
      listPodsOnNode: (name) => apiServing(volumeId).listPodsOnNode(name),
    },
    onWarning: (message) => warnings.push(message),
    ...options,
  });
  const client = connectCsiInProcess(driver);
  const { volume } = await client.createVolume(createRequest("pvc-1", { volumeCapabilities: [readWriteMany] }));
  volumeId = volume?.volumeId ?? "";
  return {
    scratch,
    host,
    driver,
    client,
    volumeId,
    staging: csiStagingPath(kubeletRootDir, fuseDriverName, volumeId),
    target: csiPublishTargetPath(kubeletRootDir, podUid, pvName),
    warnings,
  };
}

async function stageAndPublish(node: Node): Promise<void> {
  const { client, volumeId, staging, target } = node;
  await client.nodeStageVolume(stageRequest(volumeId, staging, readWriteMany));
  await client.nodePublishVolume(publishRequest(volumeId, staging, target, { volumeCapability: readWriteMany }));
}

async function tearDown(node: Node): Promise<void> {
  const { client, volumeId, staging, target } = node;
  await client.nodeUnpublishVolume({ volumeId, targetPath: target });
  await client.nodeUnstageVolume({ volumeId, stagingTargetPath: staging });
  await client.deleteVolume({ volumeId, secrets: {} });
}

async function mountsAt(path: string) {
  return (await readMountInfo()).filter((mount) => mount.mountPoint === path);
}

async function daemonCommands(host: LinuxHost): Promise<string[]> {
  return (await host.daemons()).map((daemon) => `${daemon.command} ${daemon.scope} ${daemon.agent}`);
}

inPrivateMountNamespace(import.meta.filename, "fuse.csi.kvol.io on a real node", () => {
  describe("bindfs: a directory per volume", () => {
    let scratch = "";
    let node: Node | undefined;
    beforeEach(async () => {
      scratch = await makeScratchDir("fuse-bindfs");
    });
    afterEach(async () => {
      await node?.driver.stop();
      node = undefined;
      await removeScratchDir(scratch);
    });

    it("stage serves the volume's directory with bindfs in the plugin's scope; publish binds it; writes reach the directory", async (t) => {
      if (!requireOrSkip(t, whyRealFuseCannotRun("bindfs"))) return;
      node = await startNode(scratch, { fuseProgram: "bindfs" });
      const { host, client, volumeId, staging, target } = node;
      await stageAndPublish(node);
      const [stagingMount] = await mountsAt(staging);
      assert.equal(stagingMount?.fsType, "fuse");
      assert.equal(stagingMount?.source, join(scratch, "state", volumeId));
      assert.equal((await mountsAt(target))[0]?.fsType, "fuse");
      assert.deepEqual(await daemonCommands(host), [`bindfs agent csi-node/${fuseDriverName}`]);
      await writeFile(join(target, "note.txt"), "kept");
      assert.equal(await readFile(join(scratch, "state", volumeId, "note.txt"), "utf8"), "kept");
      const stats = await client.nodeGetVolumeStats({ volumeId, volumePath: target, stagingTargetPath: staging });
      assert.equal(stats.usage[0]?.used, 4);
      assert.deepEqual(stats.volumeCondition, { abnormal: false, message: "" });
      await tearDown(node);
      assert.deepEqual(await mountsAt(staging), []);
      assert.deepEqual(await host.daemons(), [], "bindfs exits with its unmount");
    });

    it("a plugin stop kills bindfs: the pod's path answers ENOTCONN; the restarted plugin re-establishes it", async (t) => {
      if (!requireOrSkip(t, whyRealFuseCannotRun("bindfs"))) return;
      node = await startNode(scratch, { fuseProgram: "bindfs" });
      const { host, driver, target, staging } = node;
      await stageAndPublish(node);
      await writeFile(join(target, "before.txt"), "written before the restart");
      await driver.stop();
      await expectErrno(host.readFile(join(target, "before.txt")), "ENOTCONN");
      assert.equal((await mountsAt(target)).length, 1, "the dead mount stays listed");
      await driver.start();
      assert.deepEqual(driver.lastReestablishReport, { repaired: [staging, target], failed: [] });
      assert.equal(await readFile(join(target, "before.txt"), "utf8"), "written before the restart");
      assert.equal((await mountsAt(target)).length, 1, "the dead mount was unmounted, not covered");
      await tearDown(node);
    });
  });

  describe("s3fs: a prefix of a bucket per volume", () => {
    let scratch = "";
    let node: Node | undefined;
    let s3: LocalS3Server | undefined;
    beforeEach(async () => {
      scratch = await makeScratchDir("fuse-s3fs");
    });
    afterEach(async () => {
      await node?.driver.stop();
      node = undefined;
      await s3?.close();
      s3 = undefined;
      await removeScratchDir(scratch);
    });

    async function startS3Node(options: Partial<FuseDriverOptions> = {}): Promise<Node> {
      s3 = await startLocalS3Server(scratch, bucket);
      return startNode(scratch, { s3: { url: s3.url, bucket, passwdFile: s3.passwdFile }, ...options });
    }

    it("stage mounts <bucket>:/<volume> with s3fs; what the pod writes becomes an object; unstage ends s3fs", async (t) => {
      if (!requireOrSkip(t, whyRealFuseCannotRun("s3fs"))) return;
      node = await startS3Node();
      const { host, client, volumeId, staging, target } = node;
      await stageAndPublish(node);
      const [stagingMount] = await mountsAt(staging);
      assert.equal(stagingMount?.fsType, "fuse");
      assert.equal(stagingMount?.source, `${bucket}:/${volumeId}`);
      assert.deepEqual(await daemonCommands(host), [`s3fs agent csi-node/${fuseDriverName}`]);
      assert.deepEqual(await host.readdir(target), [], "a new volume's prefix lists empty");
      await writeFile(join(target, "index.html"), "stored as an object");
      assert.equal(await readFile(join(target, "index.html"), "utf8"), "stored as an object");
      assert.equal(await s3?.getObject(`${volumeId}/index.html`), "stored as an object");
      const stats = await client.nodeGetVolumeStats({ volumeId, volumePath: target, stagingTargetPath: staging });
      assert.equal(stats.usage[0]?.used, "stored as an object".length);
      await tearDown(node);
      assert.deepEqual(await mountsAt(staging), []);
      assert.deepEqual(await host.daemons(), [], "s3fs exits with its unmount");
    });

    it("s3fs killed with the plugin: ENOTCONN, reported abnormal; publishing again repairs the pod's mount", async (t) => {
      if (!requireOrSkip(t, whyRealFuseCannotRun("s3fs"))) return;
      node = await startS3Node({ reestablishOnStart: false });
      const { host, driver, client, volumeId, staging, target } = node;
      await stageAndPublish(node);
      await writeFile(join(target, "kept.txt"), "in the bucket");
      await driver.stop();
      await driver.start();
      await expectErrno(host.readFile(join(target, "kept.txt")), "ENOTCONN");
      const dead = await client.nodeGetVolumeStats({ volumeId, volumePath: target, stagingTargetPath: staging });
      assert.equal(dead.volumeCondition?.abnormal, true);
      assert.match(dead.volumeCondition?.message ?? "", /transport endpoint is not connected/);
      await client.nodePublishVolume(publishRequest(volumeId, staging, target, { volumeCapability: readWriteMany }));
      assert.equal(await readFile(join(target, "kept.txt"), "utf8"), "in the bucket");
      assert.equal((await mountsAt(target)).length, 1, "the dead mount was unmounted, not covered");
      await tearDown(node);
    });
  });
});
