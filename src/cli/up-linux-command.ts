/**
 * `kvol up --host linux [--nodes N]`: the control plane in this process, as `kvol server` runs it,
 * and N real nodes on this machine, each a `kvol node --host linux` process in a mount namespace of
 * its own (so one node's mounts are invisible to another), with its files in DATA/nodes/NAME/ and
 * its log in DATA/nodes/NAME/node.log. The bundled CSI drivers' controllers run as `kvol
 * csi-driver` processes on DATA/csi-controllers/ (their node plugins run on every node), so the
 * default storage classes provision on the real nodes where the driver can run here. Ctrl-C stops
 * the nodes (their containers, cgroups, CSI plugins and mounts), the controllers, then the control plane.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { disksDirName } from "../cmd/bundled-driver-state-dir.ts";
import { requireLinuxNodeEnvironment } from "../cmd/linux-node-agent.ts";
import { type RealDiskFencing, realDiskFencing } from "../cmd/real-disk-fencing.ts";
import { releaseDiskLoopDevices } from "../cmd/release-disk-loop-devices.ts";
import { diskDriverName } from "../csi/drivers/common/constants.ts";
import { LinuxHost } from "../host/linux/linux-host.ts";
import { errorMessage } from "../runtime/error-message.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { type CommandIo, exitFailure, exitOk } from "./command-io.ts";
import { BundledCsiControllers } from "./embedded/bundled-csi-controllers.ts";
import { EmbeddedCluster, nodeNameFor } from "./embedded/embedded-cluster.ts";
import { StepProgress } from "./step-progress.ts";
import type { ClusterArguments } from "./up-command.ts";

/** The line a node agent prints once its Node is registered. */
const nodeRunningPattern = /is running on this machine/;

interface NodeProcess {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

interface NodeAccess {
  serverUrl: string;
  caFile: string;
  tokenFile: string;
}

function startNodeProcess(
  name: string,
  access: NodeAccess,
  dataDir: string,
  extraArgs: readonly string[],
): NodeProcess {
  const nodeDir = join(dataDir, "nodes", name);
  mkdirSync(nodeDir, { recursive: true });
  const log = openSync(join(nodeDir, "node.log"), "a");
  const script = process.argv[1] ?? "";
  const args = [
    ...["node", "--host", "linux", "--server", access.serverUrl, "--certificate-authority", access.caFile],
    ...["--name", name, "--token-file", access.tokenFile],
    ...extraArgs,
  ];
  // A process group of its own: a terminal's Ctrl-C reaches `kvol up` only, which stops each node once.
  const child = spawn(process.execPath, [...process.execArgv, script, ...args, "--data-dir", dataDir], {
    stdio: ["ignore", "pipe", log],
    detached: true,
  });
  closeSync(log);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { name, child, exited };
}

/** Resolves once the node printed that it runs; rejects with its log's place when it exits first. */
function nodeRunning(node: NodeProcess, dataDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    node.child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (nodeRunningPattern.test(output)) resolve();
    });
    void node.exited.then((code) =>
      reject(new Error(`node ${node.name} exited (${code}); see ${join(dataDir, "nodes", node.name, "node.log")}`)),
    );
  });
}

/** realDiskFencing with its probe in a scratch directory of its own, removed after. */
async function probedDiskFencing(host: LinuxHost, fenceAfterMs: number | undefined): Promise<RealDiskFencing> {
  const probeDir = await mkdtemp(join(tmpdir(), "kvol-fence-probe-"));
  try {
    return await realDiskFencing(host, fenceAfterMs, probeDir);
  } finally {
    await rm(probeDir, { recursive: true, force: true });
  }
}

function warnOf(io: CommandIo): (message: string) => void {
  return (message) => io.stderr(`kvol up: ${message}\n`);
}

export async function runUpLinux(parsed: ClusterArguments, io: CommandIo): Promise<number> {
  try {
    await requireLinuxNodeEnvironment();
  } catch (error) {
    io.stderr(`kvol up: ${errorMessage(error)}\n`);
    return exitFailure;
  }
  const host = new LinuxHost({ nodeName: "kvol-up" });
  const fencing = await probedDiskFencing(host, parsed.fenceAfterMs);
  if (fencing.unavailable !== undefined) {
    io.stderr(
      `kvol up: --fence-after: the real disks cannot be fenced on this machine (${fencing.unavailable}); ` +
        "a silent node holding one is refused fencing, and its Node says why\n",
    );
  }
  const progress = new StepProgress(new RealClock(), io.stderr);
  const stop = io.stopRequested();
  let embedded: EmbeddedCluster;
  try {
    embedded = await EmbeddedCluster.start({
      ...parsed,
      nodeCount: 0,
      defaultStorage: true,
      bundledCsiControllersOutside: true,
      fencers: fencing.fencers,
      progress,
      onListening: (started) =>
        io.stdout(`API server: ${started.kubeconfigUrl}\nkubeconfig: ${started.kubeconfigPath}\n`),
    });
  } catch (error) {
    io.stderr(`kvol up: ${errorMessage(error)}\n`);
    return exitFailure;
  }
  const dataDir = embedded.dataDir.path;
  const nodes: NodeProcess[] = [];
  const controllers = await progress.step("CSI controllers of the bundled drivers started", () =>
    BundledCsiControllers.start(
      embedded.bundledCsiControllers,
      dataDir,
      new RealClock(),
      (message) => io.stderr(`kvol up: ${message}\n`),
      (driverName) => (fencing.fenceable && driverName === diskDriverName ? ["--fenceable"] : []),
    ),
  );
  const nodeArgs = [
    ...(parsed.maxVolumesPerNode === undefined ? [] : ["--max-volumes-per-node", String(parsed.maxVolumesPerNode)]),
    ...(fencing.fenceable ? ["--fenceable-disks"] : []),
  ];
  try {
    for (let index = 0; index < parsed.nodeCount; index++) {
      const name = nodeNameFor(index);
      const tokenFile = embedded.dataDir.ensureNodeToken(name);
      const access = { serverUrl: embedded.kubeconfigUrl, caFile: embedded.dataDir.caFile, tokenFile };
      const node = startNodeProcess(name, access, dataDir, nodeArgs);
      nodes.push(node);
      await progress.step(`${name} started on this machine`, () => nodeRunning(node, dataDir));
    }
  } catch (error) {
    io.stderr(`kvol up: ${errorMessage(error)}\n`);
    await stopAll(nodes, controllers, embedded, warnOf(io));
    return exitFailure;
  }
  io.stdout(
    `Ready: ${nodes.length} real node(s) on this machine, in ${join(dataDir, "nodes")}.\n` +
      `Try:\n  export KUBECONFIG=${embedded.kubeconfigPath}\n  kubectl get nodes\n\nPress Ctrl-C to stop.\n`,
  );
  const signal = await stop;
  await progress.step(`stopping (${signal}): nodes, then the control plane`, () =>
    stopAll(nodes, controllers, embedded, warnOf(io)),
  );
  return exitOk;
}

async function stopAll(
  nodes: readonly NodeProcess[],
  controllers: BundledCsiControllers,
  embedded: EmbeddedCluster,
  warn: (message: string) => void,
): Promise<void> {
  const dataDir = embedded.dataDir.path;
  for (const node of nodes) if (node.child.exitCode === null) node.child.kill("SIGTERM");
  await Promise.all(nodes.map((node) => node.exited));
  await controllers.stop();
  const host = new LinuxHost({ nodeName: "kvol-up" });
  // A fenceable disk's loop devices (one per node, over the nodes' links) share its file's inode:
  // releasing the devices over the file releases them all.
  const released = await releaseDiskLoopDevices(host, join(dataDir, disksDirName));
  if (released.length > 0) warn(`released the loop devices of ${released.length} disk(s) still attached`);
  await embedded.stop();
}
