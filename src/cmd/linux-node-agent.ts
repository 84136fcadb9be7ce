/**
 * A real node: the kubelet on the Linux host seam (LinuxHost: real mounts, real helpers) with the
 * Linux container runtime (src/cri/linux/), joined to an API server over HTTP. Everything it keeps
 * on disk is under one node directory:
 *
 *   <node dir>/kubelet/          the kubelet's --root-dir (pods/, plugins/, plugins_registry/)
 *   <node dir>/var/log/pods/     container logs (<namespace>_<pod>_<uid>/<container>/<n>.log)
 *   <node dir>/containers/       the containers' writable layers
 *   <node dir>/csi-plugins/      the bundled CSI node plugins' pid and log files (node-csi-plugins.ts)
 *   <node dir>/agent.pid         the running agent's process id: `nsenter -t PID -m` enters the node's
 *                                mount namespace (where an external CSI driver must run, and findmnt
 *                                shows the node's mounts)
 *
 * and images in a store shared by the nodes of one data directory. Stopping it (Ctrl-C) stops every
 * container and removes its cgroups; the mounts go with the node's own mount namespace. An agent
 * killed outright leaves its containers running; the next one adopts them (LinuxRuntimeService
 * recover, CriContainerRuntime adoptExisting) instead of starting them again.
 */
import { mkdir, rm, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { HttpClient } from "../api/client/http-client.ts";
import { type Timers, timersWith } from "../api/timers.ts";
import { ImageStore } from "../cri/images/image-store.ts";
import { LinuxRuntimeService } from "../cri/linux/linux-runtime-service.ts";
import { type LinuxRuntimeEnvironment, probeLinuxRuntime } from "../cri/linux/runtime-requirements.ts";
import { diskDriverName, fuseDriverName, hostpathDriverName } from "../csi/drivers/common/constants.ts";
import { LinuxHost } from "../host/linux/linux-host.ts";
import { CriContainerRuntime } from "../kubelet/container/cri-container-runtime.ts";
import { Kubelet } from "../kubelet/kubelet.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { Rng } from "../runtime/rng.ts";
import { csiPluginName, pluginDir, pluginsDir, podsDir, sha256Hex } from "../volume/paths.ts";
import { bundledDriverStateDir } from "./bundled-driver-state-dir.ts";
import { NodeCsiPlugins } from "./node-csi-plugins.ts";

/** How long containers get to stop when the node shuts down (the pods' own grace periods are not waited for). */
export const nodeShutdownGracePeriodMs = 10_000;
/** The cgroup v2 directory under which each node's pods get theirs: `<cgroup2>/kvol/<node>-<root hash>`. */
export const nodesCgroupDirName = "kvol";
/** The node's CSI node plugins get their cgroups beside its pods': `<node cgroup>-csi-plugins/<driver>`. */
export const csiPluginsCgroupSuffix = "-csi-plugins";
/** The node's token, for the plugins that read the API (mode 0600), in the plugins' directory. */
const pluginTokenFileName = "token";
/** The API server's certificate authority, for the same plugins, beside the token. */
const pluginCaFileName = "ca.crt";
/** Hex digits of the root directory's hash in a node's cgroup name. */
const rootHashHexDigits = 8;

/**
 * The node's cgroup directory. Two clusters on one machine may both have a node-1: the hash of the
 * node's root directory tells them apart, and stays the same when the agent restarts.
 */
export function nodeCgroupDir(cgroup2Mount: string, nodeName: string, rootDir: string): string {
  return join(cgroup2Mount, nodesCgroupDirName, `${nodeName}-${sha256Hex(rootDir).slice(0, rootHashHexDigits)}`);
}
/** The bundled CSI drivers whose node plugins a real node runs unless told otherwise (each where it can). */
export const defaultCsiNodePlugins: readonly string[] = [hostpathDriverName, diskDriverName, fuseDriverName];
/** The file holding the running agent's process id, in the node directory. */
export const agentPidFileName = "agent.pid";
/** The kubelet's plugin registration directory under its root. */
const pluginsRegistryDirName = "plugins_registry";

export interface LinuxNodePaths {
  /** The kubelet's --root-dir. */
  rootDir: string;
  podLogsDir: string;
  containersDir: string;
  imagesDir: string;
  /** The running agent's process id, for entering the node's mount namespace. */
  agentPidFile: string;
  /** Pid and log files of the bundled CSI node plugins. */
  csiPluginsDir: string;
  /** The data directory: the bundled CSI drivers' state is in it, shared with their controllers (bundled-driver-state-dir.ts). */
  dataDir: string;
}

/** The default layout of node `nodeName` in data directory `dataDir`. */
export function linuxNodePaths(dataDir: string, nodeName: string, rootDir?: string): LinuxNodePaths {
  const nodeDir = join(dataDir, "nodes", nodeName);
  return {
    rootDir: rootDir ?? join(nodeDir, "kubelet"),
    podLogsDir: rootDir === undefined ? join(nodeDir, "var/log/pods") : "/var/log/pods",
    containersDir: join(nodeDir, "containers"),
    imagesDir: join(dataDir, "images"),
    agentPidFile: join(nodeDir, agentPidFileName),
    csiPluginsDir: join(nodeDir, "csi-plugins"),
    dataDir,
  };
}

/** The machine cannot run a real node; `problems` says what is missing and how to get it. */
export class LinuxNodeRefusedError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`this machine cannot run a real node:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "LinuxNodeRefusedError";
  }
}

/** The tools and kernel features a real node needs, or a LinuxNodeRefusedError naming what is missing. */
export async function requireLinuxNodeEnvironment(): Promise<LinuxRuntimeEnvironment> {
  const probe = await probeLinuxRuntime();
  if ("problems" in probe) throw new LinuxNodeRefusedError(probe.problems);
  return probe;
}

export interface LinuxNodeAgentOptions {
  serverUrl: string;
  /** The certificate authority of an https:// server (PEM); the CSI node plugins get it as a file. */
  caPem?: string;
  token: string;
  nodeName: string;
  paths: LinuxNodePaths;
  environment: LinuxRuntimeEnvironment;
  clock: Clock;
  rng: Rng;
  logger: Logger;
  timers?: Timers;
  /** The bundled CSI drivers whose node plugins this node runs (default `defaultCsiNodePlugins`). */
  csiNodePlugins?: readonly string[];
  /** `kvol node --max-volumes-per-node`: every bundled plugin's NodeGetInfo max_volumes_per_node. */
  maxVolumesPerNode?: number;
  /** `kvol node --fenceable-disks`: disk.csi.kvol.io's plugin attaches a loop device per disk and node. */
  fenceableDisks?: boolean;
  /** How to run kvol for the plugins' processes (default: the way this process was run). */
  kvolCommand?: readonly string[];
  /** The InternalIP and kubelet server port the Node reports (the API server reaches the kubelet there). */
  kubeletEndpoint?: { address: string; port: number };
}

export class LinuxNodeAgent {
  readonly kubelet: Kubelet;
  readonly runtime: CriContainerRuntime;
  readonly csiPlugins: NodeCsiPlugins;
  private readonly service: LinuxRuntimeService;
  private readonly cgroupRoot: string;

  constructor(private readonly options: LinuxNodeAgentOptions) {
    const { paths, environment, clock, rng, nodeName } = options;
    this.cgroupRoot = nodeCgroupDir(environment.cgroup2Mount, nodeName, paths.rootDir);
    const service = new LinuxRuntimeService({
      clock,
      rng: rng.stream("runtime"),
      images: new ImageStore(paths.imagesDir),
      stateDir: paths.containersDir,
      cgroupRoot: this.cgroupRoot,
      tools: environment.tools,
    });
    this.service = service;
    this.runtime = new CriContainerRuntime({ service, clock, podLogsDir: paths.podLogsDir });
    this.kubelet = new Kubelet({
      client: new HttpClient({
        url: options.serverUrl,
        bearerToken: options.token,
        ...(options.caPem === undefined ? {} : { caPem: options.caPem }),
      }),
      clock,
      rng: rng.stream("kubelet"),
      logger: options.logger,
      host: new LinuxHost({ nodeName }),
      timers: options.timers ?? timersWith({}),
      rootDir: paths.rootDir,
      runtime: this.runtime,
      ...(options.kubeletEndpoint === undefined
        ? {}
        : { address: options.kubeletEndpoint.address, kubeletPort: options.kubeletEndpoint.port }),
    });
    this.csiPlugins = new NodeCsiPlugins({
      driverNames: options.csiNodePlugins ?? defaultCsiNodePlugins,
      nodeName,
      rootDir: paths.rootDir,
      pluginsDir: paths.csiPluginsDir,
      stateDirOf: (driverName) => bundledDriverStateDir(paths.dataDir, driverName),
      cgroupDir: `${this.cgroupRoot}${csiPluginsCgroupSuffix}`,
      apiAccess: {
        serverUrl: options.serverUrl,
        tokenFile: join(paths.csiPluginsDir, pluginTokenFileName),
        ...(options.caPem === undefined ? {} : { caFile: join(paths.csiPluginsDir, pluginCaFileName) }),
      },
      ...(options.maxVolumesPerNode === undefined ? {} : { maxVolumesPerNode: options.maxVolumesPerNode }),
      ...(options.fenceableDisks ? { fenceableDisks: true } : {}),
      kvolCommand: options.kvolCommand ?? thisKvolCommand(),
      clock,
      logger: options.logger.with({ component: "csi-node-plugins" }),
    });
  }

  /** Makes the node's directories (Kubernetes' layout) and starts the kubelet; resolves once the Node is registered. */
  async start(): Promise<void> {
    const { rootDir, podLogsDir, containersDir } = this.options.paths;
    for (const dir of [
      podsDir(rootDir),
      pluginsDir(rootDir),
      pluginDir(rootDir, csiPluginName),
      join(rootDir, pluginsRegistryDirName),
      podLogsDir,
      containersDir,
    ]) {
      await mkdir(dir, { recursive: true, mode: 0o750 });
    }
    await mkdir(this.cgroupRoot, { recursive: true });
    // The runtime is the truth: containers a killed predecessor left keep running and are adopted.
    await this.service.recover();
    const adopted = await this.runtime.adoptExisting();
    if (adopted > 0) this.options.logger.info("Adopted running containers", { containers: adopted });
    await writeFile(this.options.paths.agentPidFile, `${process.pid}\n`);
    await mkdir(this.options.paths.csiPluginsDir, { recursive: true, mode: 0o750 });
    await writeFile(join(this.options.paths.csiPluginsDir, pluginTokenFileName), `${this.options.token}\n`, {
      mode: 0o600,
    });
    if (this.options.caPem !== undefined) {
      await writeFile(join(this.options.paths.csiPluginsDir, pluginCaFileName), this.options.caPem, { mode: 0o600 });
    }
    // Before the kubelet: a plugin left in another mount namespace is replaced before it is seen.
    await this.csiPlugins.start();
    await this.kubelet.start();
  }

  /** The kubelet stops, then every container (SIGTERM, SIGKILL after the grace period) and its cgroup. */
  async stop(): Promise<void> {
    await this.kubelet.stop();
    await this.runtime.shutdown(nodeShutdownGracePeriodMs);
    await this.csiPlugins.stop();
    await removeEmptyDir(this.cgroupRoot);
    await removeEmptyDir(join(this.cgroupRoot, ".."));
    await rm(this.options.paths.agentPidFile, { force: true });
  }
}

/** kvol as this process was run: node, its loader flags (tsx), the script. */
function thisKvolCommand(): string[] {
  return [process.execPath, ...process.execArgv, process.argv[1] ?? ""];
}

/** Removes a directory that should be empty now; one still in use by another node stays. */
async function removeEmptyDir(dir: string): Promise<void> {
  try {
    await rmdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "EBUSY" && code !== "ENOTEMPTY") throw error;
  }
}
