/**
 * Seed 003 for real: `kvol csi-driver fuse.csi.kvol.io` runs as its own process in a cgroup of its
 * own — the node plugin's container — and serves a volume with a real bindfs daemon, which runs in
 * that same scope. A reader in the node's mount namespace (busybox `cat`) reads the published
 * volume. `kill -9` of the plugin and of its scope, as a container restart does, kills bindfs: the
 * reader gets "Transport endpoint is not connected" and the kubelet's check sees a corrupted mount.
 * The restarted plugin (kvol's fix, fuse-reestablish.ts) reads from the API which mounts it served,
 * re-establishes them, and the reader reads the file again. The same story runs with bindfs (a
 * directory per volume) and with s3fs against a local S3 server, as in the seed.
 *
 * Runs inside a private mount namespace, so nothing mounted here is seen outside or outlives it.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, type TestContext, test } from "node:test";
import { fileURLToPath } from "node:url";
import { HttpClient } from "../api/client/http-client.ts";
import { testPod } from "../api/client/testing/test-api.ts";
import { createMemoryStore } from "../api/store/memory-store.ts";
import { type RunningApiServer, startApiServer } from "../apiserver/server.ts";
import { testTls } from "../apiserver/testing/test-tls.ts";
import { killCgroup, removeCgroup } from "../cri/linux/container-cgroup.ts";
import { fuseDriverName } from "../csi/drivers/common/constants.ts";
import { type LocalS3Server, startLocalS3Server } from "../csi/drivers/fuse/testing/local-s3-server.ts";
import {
  createRequest,
  mountCapability,
  publishRequest,
  stageRequest,
} from "../csi/drivers/testing/driver-test-support.ts";
import { connectCsiSocket } from "../csi/grpc/client.ts";
import { unixEndpoint } from "../csi/grpc/endpoint.ts";
import type { CsiClient } from "../csi/grpc/services.ts";
import { cgroupPids, findCgroup2Mount } from "../host/linux/cgroup.ts";
import { LinuxHost } from "../host/linux/linux-host.ts";
import { readMountInfo } from "../host/linux/mount-info-reader.ts";
import { inPrivateMountNamespace } from "../host/linux/private-mount-namespace.ts";
import { whyRealFuseCannotRun } from "../host/linux/real-fuse-requirements.ts";
import { makeScratchDir, removeScratchDir } from "../host/linux/scratch-dir.ts";
import { isCorruptedMnt, pathExists } from "../host/mount/mount-points.ts";
import { Logger, MemorySink } from "../runtime/logger.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { Rng } from "../runtime/rng.ts";
import { requireOrSkip } from "../testing/requirements.ts";
import { csiPublishTargetPath, csiStagingPath } from "../volume/paths.ts";

const kvolBin = fileURLToPath(new URL("../../bin/kvol.js", import.meta.url));
const clock = new RealClock();
/** Patience only: a loaded machine starts node and tsx slowly. */
const pluginStartTimeoutMs = 60_000;
const pluginExitTimeoutMs = 30_000;
const callTimeoutMs = 30_000;
const readerTimeoutMs = 30_000;
/** Between two looks at the plugin's cgroup emptying after cgroup.kill. */
const cgroupPollPeriodMs = 20;
const cgroupPollsMax = 1500;
/** Between two stats of the dead mount point, while the kernel's attribute cache still answers. */
const kubeletCheckPollPeriodMs = 100;
const kubeletCheckPollsMax = 300;
const nodeName = "node-1";
const pvName = "pv-seed-003";
const fileText = "index.html served through FUSE\n";
const bucket = "volumes";
const readWriteMany = mountCapability({ mode: "MULTI_NODE_MULTI_WRITER" });

interface Plugin {
  child: ChildProcess;
  /** The plugin container's cgroup: the plugin and every process it starts. */
  cgroupDir: string;
  output: () => string;
  exited: Promise<number | null>;
}

function whyCannotRun(program: string): string | undefined {
  const fuse = whyRealFuseCannotRun(program);
  if (fuse !== undefined) return fuse;
  if (spawnSync("busybox", ["true"]).status !== 0)
    return "busybox is not installed (Debian: apt-get install busybox-static)";
  return undefined;
}

/**
 * Starts `kvol csi-driver` as the first process of a fresh cgroup, as a container runtime starts a
 * plugin container, and resolves once it serves.
 */
async function startPlugin(cgroupDir: string, args: readonly string[]): Promise<Plugin> {
  await mkdir(cgroupDir);
  // The shell joins the cgroup and then becomes the plugin: not one instruction runs outside it.
  const joinThenExec = 'echo $$ > "$0/cgroup.procs" && exec "$@"';
  const child = spawn(
    "/bin/sh",
    ["-c", joinThenExec, cgroupDir, process.execPath, kvolBin, "csi-driver", fuseDriverName, ...args],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = clock.setTimer(pluginStartTimeoutMs, () =>
      reject(new Error(`the plugin did not serve within ${pluginStartTimeoutMs} ms:\n${output}`)),
    );
    const collect = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.includes("kvol csi-driver: serving ")) {
        timer.cancel();
        resolve({ child, cgroupDir, output: () => output, exited });
      }
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    void exited.then((code) => {
      timer.cancel();
      reject(new Error(`the plugin exited with status ${code} before serving:\n${output}`));
    });
  });
}

function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = clock.setTimer(timeoutMs, () => reject(new Error(`${what}: not within ${timeoutMs} ms`)));
    void promise.then(
      (value) => {
        timer.cancel();
        resolve(value);
      },
      (error: unknown) => {
        timer.cancel();
        reject(error);
      },
    );
  });
}

/** What a container runtime does when the plugin container goes: every process of its cgroup is killed. */
async function killScope(cgroupDir: string): Promise<void> {
  await killCgroup(cgroupDir);
  for (let poll = 0; poll < cgroupPollsMax; poll += 1) {
    if ((await cgroupPids(cgroupDir)).length === 0 && (await removeCgroup(cgroupDir))) return;
    await clock.sleep(cgroupPollPeriodMs);
  }
  assert.fail(`cgroup ${cgroupDir} still holds ${await cgroupPids(cgroupDir)} after cgroup.kill`);
}

/** Whether the plugin is in its scope, and how many `program` daemons are (a helper that came and went is not counted). */
async function scopeOf(plugin: Plugin, program: string): Promise<{ plugin: boolean; daemons: number }> {
  const pids = await cgroupPids(plugin.cgroupDir);
  const commands = await Promise.all(pids.map(commandOf));
  return { plugin: pids.includes(plugin.child.pid ?? -1), daemons: commands.filter((c) => c === program).length };
}

/** The process's command name; "" when it exited since its cgroup was listed. */
async function commandOf(pid: number): Promise<string> {
  try {
    return (await readFile(`/proc/${pid}/comm`, "utf8")).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw error;
  }
}

/**
 * The reader: a process of the node's mount namespace reading the pod's file. Asynchronous, so the
 * S3 server in this process keeps answering s3fs while the reader waits on it.
 */
function busyboxCat(path: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn("busybox", ["cat", path], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    const timer = clock.setTimer(readerTimeoutMs, () => {
      child.kill("SIGKILL");
      reject(new Error(`busybox cat ${path} did not finish within ${readerTimeoutMs} ms`));
    });
    child.once("error", (error) => {
      timer.cancel();
      reject(error);
    });
    child.once("close", (status) => {
      timer.cancel();
      resolve({ status, stdout, stderr });
    });
  });
}

/**
 * The kubelet's check of the pod's mount (PathExists, then IsCorruptedMnt), repeated until it sees
 * the mount corrupted: for up to FUSE's attribute timeout (1 s in libfuse) after the daemon died, the
 * kernel still answers a stat of the mount point from its cache, although every open fails already.
 */
async function kubeletCheck(host: LinuxHost, target: string) {
  for (let poll = 0; poll < kubeletCheckPollsMax; poll += 1) {
    const seen = await pathExists(host, target);
    if (seen.error !== undefined) return seen;
    await clock.sleep(kubeletCheckPollPeriodMs);
  }
  return pathExists(host, target);
}

async function fuseMountsAt(path: string) {
  return (await readMountInfo()).filter((mount) => mount.mountPoint === path);
}

interface Variant {
  /** The FUSE program the plugin runs. */
  program: "bindfs" | "s3fs";
  /** What else the plugin is started with. */
  pluginArgs: string[];
  /** What the mount table names as the source of the volume's FUSE mount. */
  mountSource: (volumeId: string) => string;
  /** Where the volume's file is kept, read without FUSE. */
  storedFile: (volumeId: string) => Promise<string | undefined>;
}

inPrivateMountNamespace(import.meta.filename, "seed 003 on a real node: fuse.csi.kvol.io plugin restart", () => {
  let scratch = "";
  let server: RunningApiServer | undefined;
  let s3: LocalS3Server | undefined;
  let plugins: Plugin[] = [];
  let client: CsiClient | undefined;

  beforeEach(async () => {
    scratch = await makeScratchDir("seed-003");
  });

  afterEach(async () => {
    client?.close();
    client = undefined;
    for (const plugin of plugins) {
      if (plugin.child.exitCode === null && plugin.child.signalCode === null) plugin.child.kill("SIGKILL");
      await killScope(plugin.cgroupDir);
    }
    plugins = [];
    await server?.close();
    server = undefined;
    await s3?.close();
    s3 = undefined;
    await removeScratchDir(scratch);
  });

  async function seed003(t: TestContext, variant: Variant): Promise<void> {
    if (!requireOrSkip(t, whyCannotRun(variant.program))) return;
    const cgroup2Mount = findCgroup2Mount(await readMountInfo());
    const noCgroup2 = "no cgroup2 hierarchy is mounted (at /sys/fs/cgroup or /sys/fs/cgroup/unified)";
    if (!requireOrSkip(t, cgroup2Mount === undefined ? noCgroup2 : undefined) || cgroup2Mount === undefined) return;
    const store = createMemoryStore({ clock, random: new Rng(3).stream("store") });
    // Over HTTPS, as kvol's clients speak to a server: the plugin trusts the CA given in --certificate-authority.
    const { tls, caPem } = testTls(clock.now());
    server = await startApiServer({
      tls,
      store,
      clock,
      logger: new Logger({ clock, sink: new MemorySink() }),
      port: 0,
    });
    const serverUrl = server.secureUrl ?? "";
    const caFile = join(scratch, "ca.crt");
    await writeFile(caFile, caPem);
    const endpoint = unixEndpoint(join(scratch, "csi.sock"));
    const pluginArgs = [
      "--endpoint",
      endpoint,
      "--node-id",
      nodeName,
      "--state-dir",
      join(scratch, "state"),
      "--server",
      serverUrl,
      "--certificate-authority",
      caFile,
      "--kubelet-root-dir",
      join(scratch, "kubelet"),
      ...variant.pluginArgs,
    ];
    client = connectCsiSocket({ endpoint, clock, callTimeoutMs });
    const scopeDir = (n: number) => join(cgroup2Mount, `kvol-test-fuse-plugin-${process.pid}-${variant.program}-${n}`);
    const kubeletRoot = join(scratch, "kubelet");
    const first = await startPlugin(scopeDir(1), pluginArgs);
    plugins.push(first);

    // The cluster's view: a fuse volume bound to claim `data`, used by pod `web` on this node.
    const { volume } = await client.createVolume(
      createRequest("pvc-seed-003", { volumeCapabilities: [readWriteMany] }),
    );
    const volumeId = volume?.volumeId ?? "";
    const api = new HttpClient({ url: serverUrl, caPem });
    await api.persistentVolumes.create({
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: pvName },
      spec: {
        capacity: { storage: "10Mi" },
        accessModes: ["ReadWriteMany"],
        persistentVolumeReclaimPolicy: "Delete",
        csi: { driver: fuseDriverName, volumeHandle: volumeId },
        claimRef: { namespace: "default", name: "data" },
      },
    });
    await api.persistentVolumeClaims.create({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { namespace: "default", name: "data" },
      spec: { accessModes: ["ReadWriteMany"], resources: { requests: { storage: "10Mi" } }, volumeName: pvName },
    });
    const pod = await api.pods.create(testPod("default", "web", nodeName, ["data"]));
    const podUid = pod.metadata?.uid ?? "";

    // The kubelet stages and publishes, at the paths it uses.
    const staging = csiStagingPath(kubeletRoot, fuseDriverName, volumeId);
    const target = csiPublishTargetPath(kubeletRoot, podUid, pvName);
    await client.nodeStageVolume(stageRequest(volumeId, staging, readWriteMany));
    await client.nodePublishVolume(publishRequest(volumeId, staging, target, { volumeCapability: readWriteMany }));
    await writeFile(join(target, "index.html"), fileText);
    const file = join(target, "index.html");
    assert.deepEqual(await busyboxCat(file), { status: 0, stdout: fileText, stderr: "" });

    // bindfs serves the staging path (libfuse 3: type `fuse`), from inside the plugin's scope.
    const stagingMount = (await fuseMountsAt(staging))[0];
    assert.equal(stagingMount?.fsType, "fuse");
    assert.equal(stagingMount?.source, variant.mountSource(volumeId));
    assert.deepEqual(
      await scopeOf(first, variant.program),
      { plugin: true, daemons: 1 },
      "the plugin and its daemon share its scope",
    );

    // The plugin container restarts: kill -9 of the plugin, then of everything in its scope.
    first.child.kill("SIGKILL");
    assert.equal(await within(first.exited, pluginExitTimeoutMs, "the killed plugin exiting"), null);
    await killScope(first.cgroupDir);

    // The failure: the pod's reader, and the kubelet's corrupted-mount check.
    assert.deepEqual(await busyboxCat(file), {
      status: 1,
      stdout: "",
      stderr: `cat: can't open '${file}': Transport endpoint is not connected\n`,
    });
    const host = new LinuxHost({ nodeName });
    const seen = await kubeletCheck(host, target);
    assert.equal(seen.exists, true);
    assert.ok(isCorruptedMnt(seen.error), `the kubelet sees a corrupted mount, got ${String(seen.error)}`);
    assert.equal(seen.error?.message, `stat ${target}: transport endpoint is not connected`);
    assert.deepEqual(
      (await fuseMountsAt(target)).map((mount) => mount.fsType),
      ["fuse"],
      "the dead mount stays in the mount table",
    );

    // The fix: the restarted plugin re-establishes what the API says it served on this node.
    const second = await startPlugin(scopeDir(2), pluginArgs);
    plugins.push(second);
    assert.deepEqual(await busyboxCat(file), { status: 0, stdout: fileText, stderr: "" });
    assert.equal((await fuseMountsAt(target)).length, 1, "the dead mount was unmounted, not covered");
    assert.deepEqual(
      await scopeOf(second, variant.program),
      { plugin: true, daemons: 1 },
      "the new daemon runs in the new plugin's scope",
    );
    assert.doesNotMatch(second.output(), /could not re-establish/);
    assert.equal(await variant.storedFile(volumeId), fileText);

    // And the kubelet's teardown still works on the repaired mounts.
    await client.nodeUnpublishVolume({ volumeId, targetPath: target });
    await client.nodeUnstageVolume({ volumeId, stagingTargetPath: staging });
    assert.deepEqual(await fuseMountsAt(staging), []);
    await client.deleteVolume({ volumeId, secrets: {} });
    second.child.kill("SIGTERM");
    assert.equal(await within(second.exited, pluginExitTimeoutMs, "the plugin stopping on SIGTERM"), 0);
  }

  test("bindfs: kill -9 of the plugin and its scope gives the reader ENOTCONN; the restarted plugin re-establishes the mount", async (t) => {
    await seed003(t, {
      program: "bindfs",
      pluginArgs: [],
      mountSource: (volumeId) => join(scratch, "state", volumeId),
      storedFile: (volumeId) => readFile(join(scratch, "state", volumeId, "index.html"), "utf8"),
    });
  });

  test("s3fs, as in the seed: the same failure and the same repair, the data kept in the bucket", async (t) => {
    if (whyCannotRun("s3fs") === undefined) s3 = await startLocalS3Server(scratch, bucket);
    const s3Args =
      s3 === undefined ? [] : ["--s3-url", s3.url, "--s3-bucket", bucket, "--s3-passwd-file", s3.passwdFile];
    await seed003(t, {
      program: "s3fs",
      pluginArgs: s3Args,
      mountSource: (volumeId) => `${bucket}:/${volumeId}`,
      storedFile: async (volumeId) => s3?.getObject(`${volumeId}/index.html`),
    });
  });
});
