/**
 * The measuring half of `npm run bench -- real-node`, run by real-node.bench.ts inside a private
 * mount namespace (so nothing it mounts outlives it). Prints one JSON line: for each round, the
 * milliseconds of each phase of a 1 GiB attachable volume through disk.csi.kvol.io on this
 * machine's LinuxHost and a busybox container in the Linux runtime, and of the raw commands that
 * do the same work by hand, run in the same round right before.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, rmdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ImageStore } from "../src/cri/images/image-store.ts";
import { cgroupPids } from "../src/cri/linux/container-cgroup.ts";
import { LinuxRuntimeService } from "../src/cri/linux/linux-runtime-service.ts";
import { probeLinuxRuntime } from "../src/cri/linux/runtime-requirements.ts";
import { createBundledDriver } from "../src/csi/drivers/bundled-drivers.ts";
import { connectCsiInProcess } from "../src/csi/grpc/in-process.ts";
import type { CsiClient } from "../src/csi/grpc/services.ts";
import type { VolumeCapability } from "../src/csi/proto/types.ts";
import { LinuxHost } from "../src/host/linux/linux-host.ts";
import { RealClock } from "../src/runtime/real-clock.ts";
import { Rng } from "../src/runtime/rng.ts";
import { type PhaseTimes, rawRound, sh, timed, volumeBytes } from "./raw-volume-round.ts";

const rounds = Number(process.env.KVOL_BENCH_REAL_NODE_ROUNDS ?? "3");
const containerStopTimeoutMs = 2_000;
const capability: VolumeCapability = {
  mount: { fsType: "ext4", mountFlags: [], volumeMountGroup: "" },
  accessMode: { mode: "SINGLE_NODE_WRITER" },
};

export type { PhaseTimes } from "./raw-volume-round.ts";

interface DriverSetup {
  client: CsiClient;
  runtime: LinuxRuntimeService;
}

async function driverRound(dir: string, setup: DriverSetup, round: number): Promise<PhaseTimes> {
  const { client, runtime } = setup;
  const times: PhaseTimes = {};
  const kubelet = join(dir, "kubelet");
  let volumeId = "";
  let publishContext: Record<string, string> = {};
  const staging = () => join(kubelet, "plugins/kubernetes.io/csi/disk.csi.kvol.io", volumeId, "globalmount");
  const target = join(kubelet, `pods/uid-${round}/volumes/kubernetes.io~csi/pv-bench/mount`);
  await timed(times, "create", async () => {
    const { volume } = await client.createVolume({
      name: `pvc-bench-${round}`,
      capacityRange: { requiredBytes: volumeBytes, limitBytes: 0 },
      volumeCapabilities: [capability],
      parameters: {},
      secrets: {},
      volumeContentSource: null,
      accessibilityRequirements: null,
      mutableParameters: {},
    });
    volumeId = volume?.volumeId ?? "";
  });
  await timed(times, "attach", async () => {
    const response = await client.controllerPublishVolume({
      volumeId,
      nodeId: "bench-node",
      volumeCapability: capability,
      readonly: false,
      secrets: {},
      volumeContext: {},
    });
    publishContext = response.publishContext;
  });
  const common = { volumeId, publishContext, volumeCapability: capability, secrets: {}, volumeContext: {} };
  await timed(times, "stage", () => client.nodeStageVolume({ ...common, stagingTargetPath: staging() }));
  await timed(times, "publish", () =>
    client.nodePublishVolume({ ...common, stagingTargetPath: staging(), targetPath: target, readonly: false }),
  );
  let sandboxId = "";
  let containerId = "";
  await timed(times, "container start", async () => {
    sandboxId = await runtime.runPodSandbox({
      metadata: { name: `bench-${round}`, namespace: "default", uid: `uid-${round}`, attempt: 0 },
      hostname: `bench-${round}`,
      logDirectory: join(dir, "logs", `default_bench-${round}_uid-${round}`),
    });
    containerId = await runtime.createContainer(sandboxId, {
      metadata: { name: "app", attempt: 0 },
      image: "busybox",
      // Exits on SIGTERM, so the stop measures the runtime rather than the grace period.
      command: ["sh", "-c", "trap 'exit 0' TERM; touch /data/.trapped; sleep 3600 & wait"],
      args: [],
      workingDir: "",
      envs: [],
      mounts: [{ containerPath: "/data", hostPath: target, readonly: false, propagation: "PROPAGATION_PRIVATE" }],
      devices: [],
      logPath: "app/0.log",
    });
    await runtime.startContainer(containerId);
  });
  await untilExists(join(target, ".trapped"));
  await timed(times, "container stop", async () => {
    await runtime.stopContainer(containerId, containerStopTimeoutMs);
    await runtime.removePodSandbox(sandboxId);
  });
  await timed(times, "unpublish", () => client.nodeUnpublishVolume({ volumeId, targetPath: target }));
  await timed(times, "unstage", () => client.nodeUnstageVolume({ volumeId, stagingTargetPath: staging() }));
  await timed(times, "detach", () => client.controllerUnpublishVolume({ volumeId, nodeId: "bench-node", secrets: {} }));
  await timed(times, "delete", () => client.deleteVolume({ volumeId, secrets: {} }));
  return times;
}

const trapPollMs = 10;
const trapPollsMax = 1_000;

/** Waits (untimed) until the container has set its SIGTERM trap, which it marks with a file. */
async function untilExists(path: string): Promise<void> {
  for (let poll = 0; poll < trapPollsMax; poll += 1) {
    if (existsSync(path)) return;
    await new Promise((resolve) => setTimeout(resolve, trapPollMs));
  }
  throw new Error(`${path} did not appear: the container did not start its command`);
}

async function removeCgroupTree(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  for (const entry of entries) await removeCgroupTree(join(dir, entry));
  if ((await cgroupPids(dir)).length > 0) await writeFile(join(dir, "cgroup.kill"), "1");
  await rmdir(dir);
}

/** After a failed round: unmount what is left under `dir` and release loop devices over its files. */
async function releaseLeftovers(dir: string): Promise<void> {
  const mounts = sh("findmnt", ["-rn", "-o", "TARGET"])
    .split("\n")
    .filter((target) => target.startsWith(`${dir}/`))
    .reverse();
  for (const target of mounts) spawnSync("umount", ["-l", target]);
  const images = sh("find", [dir, "-name", "*.img"])
    .split("\n")
    .filter((path) => path !== "");
  for (const image of images) {
    for (const line of sh("losetup", ["-j", image]).split("\n")) {
      const device = line.slice(0, line.indexOf(":"));
      if (device !== "") spawnSync("losetup", ["-d", device]);
    }
  }
}

async function main(): Promise<void> {
  const probe = await probeLinuxRuntime();
  if ("problems" in probe) throw new Error(probe.problems.join("; "));
  const dir = await mkdtemp(join(tmpdir(), "kvol-bench-real-node-"));
  const cgroupRoot = join(probe.cgroup2Mount, `kvol-bench-${process.pid}`);
  const clock = new RealClock();
  const host = new LinuxHost({ nodeName: "bench-node" });
  const driver = createBundledDriver("disk.csi.kvol.io", {
    host,
    clock,
    nodeId: "bench-node",
    stateDir: join(dir, "disks"),
  });
  if (driver === undefined) throw new Error("disk.csi.kvol.io is not bundled");
  const runtime = new LinuxRuntimeService({
    clock,
    rng: new Rng(process.pid),
    images: new ImageStore(join(dir, "images")),
    stateDir: join(dir, "containers"),
    cgroupRoot,
    tools: probe.tools,
  });
  const setup = { client: connectCsiInProcess(driver), runtime };
  const results: Array<{ raw: PhaseTimes; driver: PhaseTimes }> = [];
  try {
    // A first container start builds the busybox image; it is not part of any round.
    await driverRound(dir, setup, 0);
    for (let round = 1; round <= rounds; round += 1) {
      const raw = await rawRound(dir, probe.tools.busybox);
      results.push({ raw, driver: await driverRound(dir, setup, round) });
    }
  } finally {
    await releaseLeftovers(dir);
    await removeCgroupTree(cgroupRoot);
    await rm(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

await main();
