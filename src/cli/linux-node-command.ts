/**
 * `kvol node --host linux …`: a real node (src/cmd/linux-node-agent.ts) in a mount namespace of its
 * own. The command checks the machine first and refuses, saying what is missing, without root or a
 * needed tool; then it runs itself again under `unshare --mount --propagation slave`, so the
 * node's mounts are invisible to the machine and to other nodes while the machine's mounts still
 * reach the node, and everything it mounted goes away with it. An agent started after one that was
 * killed joins the namespace its containers' monitors, or its CSI node plugins, still hold
 * (nsenter), so what was mounted there stays in view.
 */
import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { startKubeletServer } from "../cmd/kubelet-endpoint.ts";
import { LinuxNodeAgent, linuxNodePaths, requireLinuxNodeEnvironment } from "../cmd/linux-node-agent.ts";
import { nodeAddressWhenServerReachable } from "../cmd/node-address.ts";
import { nodeNamespaceHolder } from "../cmd/node-csi-plugins.ts";
import { liveMonitorPid } from "../cri/linux/live-monitor.ts";
import { LinuxHost } from "../host/linux/linux-host.ts";
import type { KubeletServer } from "../kubelet/server/kubelet-server.ts";
import { nodeStreaming } from "../kubelet/server/node-streaming.ts";
import { errorMessage } from "../runtime/error-message.ts";
import { Logger, type LogLevel, stderrSink } from "../runtime/logger.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { Rng } from "../runtime/rng.ts";
import { type CommandIo, exitFailure, exitOk } from "./command-io.ts";
import { defaultDataDir } from "./embedded/data-dir.ts";
import { StoppedBeforeStart, startUnlessStopped } from "./start-unless-stopped.ts";
import { StepProgress } from "./step-progress.ts";

/** Set in the environment of the node process running inside its own mount namespace. */
const ownMountNamespaceEnvName = "KVOL_NODE_IN_OWN_MOUNT_NAMESPACE";
const maxSeed = 2 ** 31 - 1;

interface LinuxNodeArguments {
  serverUrl: string;
  caPem?: string;
  nodeName: string;
  token: string;
  logLevel: LogLevel;
  dataDir: string | undefined;
  rootDir: string | undefined;
  csiNodePlugins?: readonly string[];
  maxVolumesPerNode?: number;
  fenceableDisks?: boolean;
  kubeletPort: number;
  nodeIp: string | undefined;
}

export async function runLinuxNode(parsed: LinuxNodeArguments, io: CommandIo): Promise<number> {
  let environment: Awaited<ReturnType<typeof requireLinuxNodeEnvironment>>;
  try {
    environment = await requireLinuxNodeEnvironment();
  } catch (error) {
    io.stderr(`kvol node: ${errorMessage(error)}\n`);
    return exitFailure;
  }
  const paths = linuxNodePaths(parsed.dataDir ?? defaultDataDir(), parsed.nodeName, parsed.rootDir);
  if (process.env[ownMountNamespaceEnvName] !== "1") {
    // After the agent was killed, its containers' monitors and its CSI node plugins keep the node's
    // mount namespace: join it.
    const holder = (await liveMonitorPid(paths.containersDir)) ?? (await nodeNamespaceHolder(paths.csiPluginsDir));
    const enter =
      holder === undefined
        ? [environment.tools.unshare, "--mount", "--propagation", "slave"]
        : [environment.tools.nsenter, `--mount=/proc/${holder}/ns/mnt`, "--"];
    return runInOwnMountNamespace(enter, io);
  }
  const clock = new RealClock();
  const logger = new Logger({ clock, sink: stderrSink, level: parsed.logLevel });
  const stop = io.stopRequested();
  let stopSignal: string | undefined;
  void stop.then((signal) => {
    stopSignal = signal;
  });
  let kubeletServer: KubeletServer;
  let address: string;
  try {
    const found =
      parsed.nodeIp ??
      (await nodeAddressWhenServerReachable({
        serverUrls: parsed.serverUrl,
        clock,
        logger,
        keepTrying: () => stopSignal === undefined,
      }));
    if (found === undefined) {
      io.stderr(`kvol node: stopped (${stopSignal}) before the node registered\n`);
      return exitOk;
    }
    address = found;
    kubeletServer = await startKubeletServer({ ...parsed, port: parsed.kubeletPort, clock, logger }, address);
  } catch (error) {
    io.stderr(`kvol node: ${errorMessage(error)}\n`);
    return exitFailure;
  }
  const agent = new LinuxNodeAgent({
    serverUrl: parsed.serverUrl,
    ...(parsed.caPem === undefined ? {} : { caPem: parsed.caPem }),
    token: parsed.token,
    nodeName: parsed.nodeName,
    paths,
    environment,
    clock,
    rng: new Rng(randomInt(1, maxSeed)),
    logger,
    ...(parsed.csiNodePlugins === undefined ? {} : { csiNodePlugins: parsed.csiNodePlugins }),
    ...(parsed.maxVolumesPerNode === undefined ? {} : { maxVolumesPerNode: parsed.maxVolumesPerNode }),
    ...(parsed.fenceableDisks ? { fenceableDisks: true } : {}),
    kubeletEndpoint: { address, port: kubeletServer.port },
  });
  const { kubelet, runtime } = agent;
  kubeletServer.serve(
    nodeStreaming({
      clock,
      host: new LinuxHost({ nodeName: parsed.nodeName }),
      podManager: kubelet.podManager,
      runtime,
    }),
  );
  kubeletServer.serveDebugState(() => kubelet.debugState());
  kubeletServer.serveMetrics(() => kubelet.metrics);
  kubeletServer.serveStatsSummary(() => kubelet.statsSummary());
  const progress = new StepProgress(clock, io.stderr);
  try {
    await progress.step(`${parsed.nodeName} registered with ${parsed.serverUrl}`, () =>
      startUnlessStopped(agent, stop),
    );
  } catch (error) {
    io.stderr(`kvol node: ${errorMessage(error)}\n`);
    await kubeletServer.close();
    await agent.stop();
    return error instanceof StoppedBeforeStart ? exitOk : exitFailure;
  }
  io.stdout(`node ${parsed.nodeName} is running on this machine (root dir ${paths.rootDir}); press Ctrl-C to stop.\n`);
  const signal = await stop;
  await progress.step(`stopping (${signal}): containers, cgroups, mounts`, async () => {
    await kubeletServer.close();
    await agent.stop();
  });
  return exitOk;
}

/**
 * Runs this same command again inside the node's mount namespace (`enter`: unshare for a new one,
 * nsenter for the one a killed agent left) and passes on its exit status and stop signal.
 */
async function runInOwnMountNamespace(enter: readonly string[], io: CommandIo): Promise<number> {
  const [program = "", ...programArgs] = enter;
  const child = spawn(
    program,
    [...programArgs, process.execPath, ...process.execArgv, ...process.argv.slice(1)],
    // A process group of its own: a terminal's Ctrl-C reaches this process, which passes it on
    // once; a second signal would make the agent leave without stopping its containers.
    { stdio: "inherit", env: { ...process.env, [ownMountNamespaceEnvName]: "1" }, detached: true },
  );
  const exited = new Promise<number>((resolve) => {
    child.on("close", (code) => resolve(code ?? exitFailure));
    child.on("error", (error) => {
      io.stderr(`kvol node: could not start ${program}: ${error.message}\n`);
      resolve(exitFailure);
    });
  });
  void io.stopRequested().then((signal) => {
    if (child.exitCode === null) child.kill(signal as NodeJS.Signals);
  });
  return exited;
}
