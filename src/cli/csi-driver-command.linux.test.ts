/**
 * `kvol csi-driver hostpath.csi.kvol.io` as a process of its own, called through real gRPC over its
 * Unix socket, making real mounts — inside a private mount namespace, so nothing it mounts is seen
 * outside or outlives the test. Needs root; skips outside CI when it cannot run.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  blockCapability,
  createRequest,
  mebibyteBytes,
  publishRequest,
  stageRequest,
} from "../csi/drivers/testing/driver-test-support.ts";
import { connectCsiSocket } from "../csi/grpc/client.ts";
import { unixEndpoint } from "../csi/grpc/endpoint.ts";
import type { CsiClient } from "../csi/grpc/services.ts";
import { readMountInfo } from "../host/linux/mount-info-reader.ts";
import { inPrivateMountNamespace } from "../host/linux/private-mount-namespace.ts";
import { makeScratchDir, mountsUnder, removeScratchDir } from "../host/linux/scratch-dir.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { requireOrSkip } from "../testing/requirements.ts";

const kvolBin = fileURLToPath(new URL("../../bin/kvol.js", import.meta.url));
const clock = new RealClock();
const driverStartTimeoutMs = 30_000;
const driverExitTimeoutMs = 15_000;
const callTimeoutMs = 30_000;

interface RunningDriver {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts the command and resolves once it says it is serving (or fails with what it printed). */
function startDriver(args: string[]): Promise<RunningDriver> {
  const child = spawn(process.execPath, [kvolBin, "csi-driver", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = clock.setTimer(driverStartTimeoutMs, () =>
      reject(new Error(`the driver did not start within ${driverStartTimeoutMs} ms:\n${output}`)),
    );
    const collect = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.includes("kvol csi-driver: serving ")) {
        timer.cancel();
        resolve({ child, output: () => output, exited });
      }
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    void exited.then((code) => {
      timer.cancel();
      reject(new Error(`the driver exited with status ${code} before serving:\n${output}`));
    });
  });
}

function waitForExit(driver: RunningDriver): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const timer = clock.setTimer(driverExitTimeoutMs, () => reject(new Error("the driver did not exit after SIGTERM")));
    void driver.exited.then((code) => {
      timer.cancel();
      resolve(code);
    });
  });
}

async function isMounted(path: string): Promise<boolean> {
  return (await readMountInfo()).some((mount) => mount.mountPoint === path);
}

function loopDevicesOver(file: string): string {
  return spawnSync("losetup", ["-j", file], { encoding: "utf8" }).stdout;
}

inPrivateMountNamespace(import.meta.filename, "kvol csi-driver hostpath.csi.kvol.io as a process", () => {
  let scratch = "";
  let stateDir = "";
  let kubeletDir = "";
  let driver: RunningDriver | undefined;
  let client: CsiClient;

  before(async () => {
    scratch = await makeScratchDir("csi-driver");
    stateDir = join(scratch, "state");
    kubeletDir = join(scratch, "kubelet");
    const endpoint = unixEndpoint(join(scratch, "csi.sock"));
    driver = await startDriver([
      "hostpath.csi.kvol.io",
      "--endpoint",
      endpoint,
      "--node-id",
      "node-1",
      "--state-dir",
      stateDir,
    ]);
    client = connectCsiSocket({ endpoint, clock, callTimeoutMs });
  });

  after(async () => {
    client?.close();
    if (driver !== undefined && driver.child.exitCode === null) driver.child.kill("SIGKILL");
    await removeScratchDir(scratch);
  });

  test("answers Identity and NodeGetInfo over its socket", async () => {
    assert.equal((await client.getPluginInfo({})).name, "hostpath.csi.kvol.io");
    assert.deepEqual(await client.probe({}), { ready: { value: true } });
    const info = await client.nodeGetInfo({});
    assert.equal(info.nodeId, "node-1");
    assert.deepEqual(info.accessibleTopology?.segments, { "topology.hostpath.csi.kvol.io/node": "node-1" });
  });

  test("provision, stage, publish, unpublish, unstage, delete with real bind mounts", async () => {
    const { volume } = await client.createVolume(createRequest("pvc-real"));
    const volumeId = volume?.volumeId ?? "";
    const dataDir = join(stateDir, volumeId);
    assert.ok((await stat(dataDir)).isDirectory());
    const staging = join(kubeletDir, "plugins/kubernetes.io/csi/hostpath.csi.kvol.io/abc/globalmount");
    const target = join(kubeletDir, "pods/uid-1/volumes/kubernetes.io~csi/pv-real/mount");

    await client.nodeStageVolume(stageRequest(volumeId, staging));
    assert.equal(await isMounted(staging), true);
    await client.nodePublishVolume(publishRequest(volumeId, staging, target));
    await client.nodePublishVolume(publishRequest(volumeId, staging, target));
    assert.equal(await isMounted(target), true);
    await writeFile(join(target, "index.html"), "hello from the pod");
    assert.equal(await readFile(join(dataDir, "index.html"), "utf8"), "hello from the pod");
    const stats = await client.nodeGetVolumeStats({ volumeId, volumePath: target, stagingTargetPath: staging });
    assert.equal(stats.usage[0]?.used, "hello from the pod".length);

    await client.nodeUnpublishVolume({ volumeId, targetPath: target });
    assert.equal(await isMounted(target), false);
    await assert.rejects(stat(target), { code: "ENOENT" });
    await client.nodeUnstageVolume({ volumeId, stagingTargetPath: staging });
    assert.equal(await isMounted(staging), false);
    await client.deleteVolume({ volumeId, secrets: {} });
    await assert.rejects(stat(dataDir), { code: "ENOENT" });
    assert.deepEqual(await mountsUnder(scratch), []);
  });

  test("a block volume: a sparse file on a real loop device, bound onto the pod's device file", async (t) => {
    const probe = spawnSync("losetup", ["-f"], { encoding: "utf8" });
    if (!requireOrSkip(t, probe.status === 0 ? undefined : `no free loop device here: ${probe.stderr.trim()}`)) return;
    const { volume } = await client.createVolume(
      createRequest("pvc-raw", {
        volumeCapabilities: [blockCapability()],
        capacityRange: { requiredBytes: 16 * mebibyteBytes, limitBytes: 0 },
      }),
    );
    const volumeId = volume?.volumeId ?? "";
    const dataFile = join(stateDir, volumeId);
    assert.equal((await stat(dataFile)).size, 16 * mebibyteBytes);
    const staging = join(kubeletDir, "plugins/kubernetes.io/csi/volumeDevices/staging/pv-raw");
    const target = join(kubeletDir, "plugins/kubernetes.io/csi/volumeDevices/publish/pv-raw/uid-1");
    try {
      await client.nodeStageVolume(stageRequest(volumeId, staging, blockCapability()));
      assert.match(loopDevicesOver(dataFile), /^\/dev\/loop\d+:/);
      await client.nodePublishVolume(
        publishRequest(volumeId, staging, target, { volumeCapability: blockCapability() }),
      );
      assert.ok((await stat(target)).isBlockDevice());
      await client.nodeUnpublishVolume({ volumeId, targetPath: target });
      await assert.rejects(stat(target), { code: "ENOENT" });
    } finally {
      await client.nodeUnstageVolume({ volumeId, stagingTargetPath: staging });
    }
    assert.equal(loopDevicesOver(dataFile), "");
    await client.deleteVolume({ volumeId, secrets: {} });
    await assert.rejects(stat(dataFile), { code: "ENOENT" });
  });

  test("disk.csi.kvol.io as a process attaches real disks: a sparse file in --state-dir behind a loop device", async (t) => {
    const probe = spawnSync("losetup", ["-f"], { encoding: "utf8" });
    if (!requireOrSkip(t, probe.status === 0 ? undefined : `no free loop device here: ${probe.stderr.trim()}`)) return;
    const disksDir = join(scratch, "disks");
    const endpoint = unixEndpoint(join(scratch, "disk.sock"));
    const disk = await startDriver([
      "disk.csi.kvol.io",
      "--endpoint",
      endpoint,
      "--node-id",
      "node-1",
      "--state-dir",
      disksDir,
    ]);
    const diskClient = connectCsiSocket({ endpoint, clock, callTimeoutMs });
    try {
      const { volume } = await diskClient.createVolume(
        createRequest("pvc-disk", { capacityRange: { requiredBytes: 16 * mebibyteBytes, limitBytes: 0 } }),
      );
      const volumeId = volume?.volumeId ?? "";
      const image = join(disksDir, `${volumeId}.img`);
      assert.equal((await stat(image)).size, 16 * mebibyteBytes);
      const attach = { volumeId, nodeId: "node-1", readonly: false, secrets: {}, volumeContext: {} };
      const { publishContext } = await diskClient.controllerPublishVolume({
        ...attach,
        volumeCapability: createRequest("x").volumeCapabilities[0] ?? null,
      });
      assert.match(publishContext.devicePath ?? "", /^\/dev\/loop\d+$/);
      assert.match(loopDevicesOver(image), new RegExp(`^${publishContext.devicePath}:`));
      await diskClient.controllerUnpublishVolume({ volumeId, nodeId: "node-1", secrets: {} });
      assert.equal(loopDevicesOver(image), "");
      await diskClient.deleteVolume({ volumeId, secrets: {} });
      await assert.rejects(stat(image), { code: "ENOENT" });
    } finally {
      diskClient.close();
      disk.child.kill("SIGTERM");
      assert.equal(await waitForExit(disk), 0);
    }
  });

  test("SIGTERM stops it cleanly with status 0", async () => {
    assert.ok(driver !== undefined);
    driver.child.kill("SIGTERM");
    assert.equal(await waitForExit(driver), 0);
    assert.match(driver.output(), /SIGTERM received, stopping/);
  });
});
