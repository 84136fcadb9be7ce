/**
 * `kvol up`: the whole cluster in one process — API server, every controller, and N simulated
 * nodes each running a real kubelet (default 3) — on the wall clock, its objects kept in a SQLite
 * file in the data directory. It prints the API server's address, the kubeconfig it wrote and a
 * first command to try, then runs until Ctrl-C or SIGTERM, when it shuts down cleanly.
 *
 * The first two lines of stdout are always, in this order and as soon as the server listens:
 *
 *   API server: https://127.0.0.1:PORT     (the address the kubeconfig holds)
 *   kubeconfig: /path/to/kubeconfig
 *
 * Every argument, the data directory and the port are checked before anything is written.
 */
import { parseArgs } from "node:util";
import { leadershipLostMessage } from "../api/leaderelection/constants.ts";
import type { EtcdTlsFiles } from "../api/store/etcd-tls.ts";
import { fenceAfterUsage, parseFenceAfter } from "../controllers/nodefencing/fence-after.ts";
import type { StorageFencer } from "../controllers/nodefencing/storage-fencer.ts";
import { parseCapacityLimit } from "../csi/drivers/common/capacity-limit.ts";
import { errorMessage } from "../runtime/error-message.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { type CommandIo, exitFailure, exitOk, exitUsage, processIo } from "./command-io.ts";
import { defaultApiPort, defaultListenHost, defaultNodeCount, maxNodeCount } from "./embedded/constants.ts";
import { type CsiControllerEndpoint, parseCsiControllerFlags } from "./embedded/csi-controller-flag.ts";
import { defaultDataDir } from "./embedded/data-dir.ts";
import { EmbeddedCluster } from "./embedded/embedded-cluster.ts";
import { checkDataDir, checkListenAddress } from "./embedded/preflight.ts";
import { parseTlsSanFlags, tlsSanUsage } from "./embedded/tls-san-flag.ts";
import { maxSpeed, minSpeed } from "./embedded/wall-clock-pacer.ts";
import { eventTtlUsage, parseEventTtlFlag } from "./event-ttl-flag.ts";
import { parseMaxVolumesPerNode } from "./max-volumes-flag.ts";
import { StepProgress } from "./step-progress.ts";
import { localEtcdConflict, runUpWithLocalEtcd } from "./up-etcd.ts";
import { runUpLinux } from "./up-linux-command.ts";

/** The `--audit-log-path` line of `kvol up` and `kvol server`'s usage. */
export const auditLogUsage = `  --audit-log-path F  append every write to the API (create, update, patch, delete; refused ones
                  too) to file F, one audit.k8s.io/v1 Event per line (level Metadata)
  --insecure-http-tokens
                  accept bearer tokens over plain HTTP too (by default a token is accepted only
                  over HTTPS, checked against DATA/ca.crt; over plain HTTP it gets a 401)`;

export const upUsage = `Usage:
  kvol up [--nodes N] [--speed S] [--port P] [--address A] [--data-dir D | --ephemeral] [--etcd] [--verbose]
          [--host linux] [--csi-controller NAME=unix:///path …] [--event-ttl 1h0m0s]
          [--max-volumes-per-node N]
          [--audit-log-path F]
          [--csi-capacity-limit 10Gi]
          [--fence-after 15s] [--tls-san NAME,…]

Starts an API server, every controller and N simulated nodes (each with a real kubelet) in this
process, and runs until Ctrl-C. kubectl and client libraries work against it unchanged.

  --nodes N       simulated nodes node-1 … node-N (default ${defaultNodeCount}, at most ${maxNodeCount})
  --speed S       run the cluster's clock S times faster than the wall clock (${minSpeed} to ${maxSpeed}, default 1):
                  every Kubernetes timer keeps its proportions; \`kvol speed S\` changes it later
  --port P        the API server's port (default ${defaultApiPort}; 0 picks a free one)
  --address A     the address to listen on (default ${defaultListenHost})
${tlsSanUsage}
  --data-dir D    where the store, tokens, kubeconfig and log live (default $KVOL_DATA_DIR or ~/.kvol)
  --ephemeral     keep the objects in memory only; nothing is kept after stopping
  --etcd          keep the objects in a local etcd started with the cluster (the machine's etcd
                  binary, Debian's etcd-server package; its data in D/etcd, loopback ports)
  --log-level L   debug, info (default), warn or error
  --verbose       print the log on stderr as well as in the data directory's kvol.log
  --host linux    real nodes on this machine instead of simulated ones (root; see kvol node)
  --csi-controller NAME=unix:///path/controller.sock
                  run the provisioner and attacher for CSI driver NAME against its controller
                  socket (a driver running outside kvol); repeat for several drivers
  --csi-capacity-limit Q
                  the bundled drivers' pools (disk.csi.kvol.io per zone, hostpath.csi.kvol.io on its
                  node) hold at most Q (a quantity, 10Gi): what GetCapacity and the CSIStorageCapacity
                  objects report, and so where the scheduler puts WaitForFirstConsumer claims
${eventTtlUsage}
  --max-volumes-per-node N
                  the max_volumes_per_node disk.csi.kvol.io reports on each simulated node (default
                  16; 0: no limit), with --host linux every bundled node plugin on each real node
                  (kvol node --max-volumes-per-node): the kubelet writes it to the CSINode's
                  allocatable count, and the scheduler places no pod that would go over it
${auditLogUsage}
${fenceAfterUsage}

Starting again on the same data directory resumes: every object is kept; the nodes register
again and their simulated machines start fresh, as after a reboot (volumes are mounted again).
Inject faults into the running cluster with \`kvol fault NAME\` (\`kvol fault --list\`).
`;

/** Where `kvol up`'s nodes run: simulated machines on the cluster's clock, or real ones. */
export type NodeHostKind = "sim" | "linux";

/**
 * `--speed` only makes sense when everything runs on the cluster's one clock. Real nodes run real
 * processes (mounts, CSI drivers, containers) on the wall clock, which no pacer can speed up.
 */
export function checkSpeedForNodes(speed: number, host: NodeHostKind): void {
  if (speed !== 1 && host !== "sim") {
    throw new Error(
      `--speed ${speed} cannot be used with --host ${host}: real nodes run real processes on the wall clock, and real processes cannot be sped up; leave out --speed`,
    );
  }
}

function speedOption(text: string | undefined): number {
  if (text === undefined) return 1;
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < minSpeed || value > maxSpeed) {
    throw new Error(
      `--speed must be a number from ${minSpeed} to ${maxSpeed} (60: a minute of the cluster per second), got ${JSON.stringify(text)}`,
    );
  }
  return value;
}

export interface ClusterArguments {
  nodeCount: number;
  /** The pace of the cluster's clock (`--speed`); 1 for `kvol server`, whose nodes run elsewhere. */
  speed: number;
  port: number;
  host: string;
  dataDir: string | undefined;
  ephemeral: boolean;
  /** `kvol server --etcd-servers`: the store is this etcd cluster instead of the data directory's file. */
  etcdServers?: readonly string[];
  /** `kvol server --etcd-cafile/--etcd-certfile/--etcd-keyfile`: TLS to those etcd servers. */
  etcdTls?: EtcdTlsFiles;
  /** `kvol server --leader-elect`: run each control-plane component only while holding its Lease. */
  leaderElect?: boolean;
  logLevel: "debug" | "info" | "warn" | "error";
  verbose: boolean;
  /** `--csi-controller`: drivers outside kvol whose controller sockets the sidecars call. */
  csiControllers?: readonly CsiControllerEndpoint[];
  /** `--event-ttl`: how long an Event is kept after its last write, in seconds (Kubernetes' 1 h when absent). */
  eventTtlSeconds?: number;
  /** `kvol up --max-volumes-per-node`: the bundled disk driver's NodeGetInfo max_volumes_per_node (with --host linux, every bundled node plugin's). */
  maxVolumesPerNode?: number;
  /** `--audit-log-path`: where every write to the API is recorded, one audit.k8s.io/v1 Event a line. */
  auditLogPath?: string;
  /** `--insecure-http-tokens`: accept bearer tokens over plain HTTP too, from loopback as from other machines; by default only over TLS. */
  insecureHttpTokens?: boolean;
  /** `kvol up --csi-capacity-limit`: the bundled drivers' pools, in bytes. */
  csiCapacityLimitBytes?: number;
  /** `--fence-after`: kvol's node fencing for every node holding volumes (docs/fencing.md); off when absent. */
  fenceAfterMs?: number;
  /** Fencers besides the simulated world's, over the data directory (`kvol server --fence-disks-dir`). */
  fencers?: (dataDirPath: string) => readonly StorageFencer[];
  /** `--tls-san`: more DNS names and IP addresses in the API server's serving certificate. */
  tlsSans?: readonly string[];
}

const logLevels = new Set(["debug", "info", "warn", "error"]);

function integerOption(name: string, text: string | undefined, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new Error(`--${name} must be a whole number from 0 to ${max}, got ${JSON.stringify(text)}`);
  }
  return value;
}

export const clusterOptionSpecs = {
  port: { type: "string" },
  address: { type: "string" },
  "data-dir": { type: "string" },
  ephemeral: { type: "boolean" },
  "log-level": { type: "string" },
  verbose: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
  "csi-controller": { type: "string", multiple: true },
  "event-ttl": { type: "string" },
  "audit-log-path": { type: "string" },
  "insecure-http-tokens": { type: "boolean" },
  "fence-after": { type: "string" },
  "tls-san": { type: "string", multiple: true },
} as const;

/** The options `kvol up` and `kvol server` share; throws an Error naming the bad one. */
export function clusterArguments(values: {
  port?: string | undefined;
  address?: string | undefined;
  "data-dir"?: string | undefined;
  ephemeral?: boolean | undefined;
  "log-level"?: string | undefined;
  verbose?: boolean | undefined;
  "csi-controller"?: string[] | undefined;
  "event-ttl"?: string | undefined;
  "audit-log-path"?: string | undefined;
  "insecure-http-tokens"?: boolean | undefined;
  "fence-after"?: string | undefined;
  "tls-san"?: string[] | undefined;
}): Omit<ClusterArguments, "nodeCount" | "speed"> {
  const logLevel = values["log-level"] ?? "info";
  if (!logLevels.has(logLevel)) throw new Error(`--log-level must be debug, info, warn or error, got "${logLevel}"`);
  const ephemeral = values.ephemeral ?? false;
  const csiControllers = parseCsiControllerFlags(values["csi-controller"]);
  const tlsSans = parseTlsSanFlags(values["tls-san"]);
  return {
    port: integerOption("port", values.port, defaultApiPort, 65_535),
    host: values.address ?? defaultListenHost,
    dataDir: values["data-dir"] ?? (ephemeral ? undefined : defaultDataDir()),
    ephemeral,
    logLevel: logLevel as ClusterArguments["logLevel"],
    verbose: values.verbose ?? false,
    ...(csiControllers.length === 0 ? {} : { csiControllers }),
    ...(values["event-ttl"] === undefined ? {} : { eventTtlSeconds: parseEventTtlFlag(values["event-ttl"]) }),
    ...(values["audit-log-path"] === undefined ? {} : { auditLogPath: auditLogPathOption(values["audit-log-path"]) }),
    ...(values["insecure-http-tokens"] === true ? { insecureHttpTokens: true } : {}),
    ...(values["fence-after"] === undefined
      ? {}
      : { fenceAfterMs: parseFenceAfter(values["fence-after"], "--fence-after") }),
    ...(tlsSans.length === 0 ? {} : { tlsSans }),
  };
}

function auditLogPathOption(path: string): string {
  if (path === "") throw new Error("--audit-log-path needs a file name");
  return path;
}

export function parseUpArguments(
  argv: readonly string[],
): (ClusterArguments & { nodeHost: NodeHostKind; localEtcd?: boolean }) | { help: true } {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      ...clusterOptionSpecs,
      nodes: { type: "string" },
      speed: { type: "string" },
      host: { type: "string" },
      etcd: { type: "boolean" },
      "max-volumes-per-node": { type: "string" },
      "csi-capacity-limit": { type: "string" },
    },
  });
  if (values.help) return { help: true };
  if (positionals.length > 0) throw new Error(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const speed = speedOption(values.speed);
  const nodeHost = nodeHostOption(values.host);
  checkSpeedForNodes(speed, nodeHost);
  const cluster = clusterArguments(values);
  const localEtcd = values.etcd ?? false;
  const maxVolumes = values["max-volumes-per-node"];
  const capacityText = values["csi-capacity-limit"];
  if (capacityText !== undefined && nodeHost === "linux") {
    throw new Error(
      "--csi-capacity-limit sizes the simulated nodes' drivers; with --host linux run kvol csi-driver --capacity-limit instead",
    );
  }
  const conflict = localEtcd ? localEtcdConflict({ ...cluster, nodeHost }) : undefined;
  if (conflict !== undefined) throw new Error(conflict);
  return {
    ...cluster,
    nodeCount: integerOption("nodes", values.nodes, defaultNodeCount, maxNodeCount),
    speed,
    nodeHost,
    ...(localEtcd ? { localEtcd } : {}),
    ...(maxVolumes === undefined ? {} : { maxVolumesPerNode: parseMaxVolumesPerNode(maxVolumes) }),
    ...(capacityText === undefined
      ? {}
      : { csiCapacityLimitBytes: parseCapacityLimit(capacityText, "--csi-capacity-limit") }),
  };
}

function nodeHostOption(text: string | undefined): NodeHostKind {
  if (text === undefined || text === "sim" || text === "linux") return text ?? "sim";
  throw new Error(`--host must be sim or linux, got "${text}"`);
}

function speedLines(embedded: EmbeddedCluster): string[] {
  if (embedded.speed === 1) return [];
  return [
    `speed: ${embedded.speed}× — the cluster's clock runs ${embedded.speed} times faster than the wall clock (\`kvol speed 1\` for real time)`,
  ];
}

function banner(commandName: string, embedded: EmbeddedCluster, ephemeral: boolean): string {
  const etcd = embedded.etcdServers;
  const kept = ephemeral
    ? "objects are kept in memory only (--ephemeral)"
    : etcd !== undefined
      ? `objects are kept in etcd at ${etcd.join(",")}`
      : `objects are kept in ${embedded.dataDir.path}; \`kvol ${commandName}\` again resumes from there`;
  return [
    `log: ${embedded.logPath}`,
    kept,
    ...speedLines(embedded),
    `web UI: ${embedded.webUiUrl}`,
    "",
    "Try:",
    `  export KUBECONFIG=${embedded.kubeconfigPath}`,
    "  kubectl get nodes",
    "",
    "Press Ctrl-C to stop.",
    "",
  ].join("\n");
}

/** Checks the data directory and the address before anything is written; throws a PreflightError. */
async function preflight(parsed: ClusterArguments): Promise<void> {
  if (parsed.dataDir !== undefined) checkDataDir(parsed.dataDir);
  await checkListenAddress(parsed.host, parsed.port);
}

/** Why the cluster did not start, with what to do about a port already taken. */
function startFailureText(error: unknown, port: number): string {
  if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
    return `port ${port} is already in use; choose another with --port (0 picks a free one)`;
  }
  return errorMessage(error);
}

/** The nodes of `kvol server` are `kvol node` processes on the wall clock. */
const serverSpeedFixedBecause =
  "the nodes of `kvol server` are `kvol node` processes on the wall clock, and other processes cannot be sped up";

/**
 * Starts the cluster with `nodeCount` nodes and serves until a stop signal. `afterListening` adds
 * lines printed right after the address and kubeconfig path.
 */
export async function runCluster(
  commandName: string,
  parsed: ClusterArguments,
  io: CommandIo,
  afterListening: (embedded: EmbeddedCluster) => string = () => "",
): Promise<number> {
  const progress = new StepProgress(new RealClock(), io.stderr);
  const stop = io.stopRequested();
  let embedded: EmbeddedCluster;
  try {
    await preflight(parsed);
    embedded = await EmbeddedCluster.start({
      ...parsed,
      defaultStorage: commandName === "up",
      progress,
      ...(commandName === "server" ? { speedFixedBecause: serverSpeedFixedBecause } : {}),
      onListening: (started) =>
        io.stdout(
          `API server: ${started.kubeconfigUrl}\nkubeconfig: ${started.kubeconfigPath}\n${afterListening(started)}`,
        ),
    });
  } catch (error) {
    io.stderr(`kvol ${commandName}: ${startFailureText(error, parsed.port)}\n`);
    return exitFailure;
  }
  io.stdout(`Ready: ${embedded.nodeNames.length} node(s).\n${banner(commandName, embedded, parsed.ephemeral)}`);
  const signal = await Promise.race([stop, embedded.leadershipLost]);
  if (signal === leadershipLostMessage) {
    // kube-controller-manager exits when it loses the Lease; a supervisor starts it again as a candidate.
    io.stderr(`kvol ${commandName}: ${leadershipLostMessage}\n`);
    await embedded.stop();
    return exitFailure;
  }
  await progress.step(`stopping (${signal})`, () => embedded.stop());
  return exitOk;
}

export async function runUpCommand(argv: readonly string[], io: CommandIo = processIo): Promise<number> {
  let parsed: ReturnType<typeof parseUpArguments>;
  try {
    parsed = parseUpArguments(argv);
  } catch (error) {
    io.stderr(`kvol up: ${errorMessage(error)}\n\n${upUsage}`);
    return exitUsage;
  }
  if ("help" in parsed) {
    io.stdout(upUsage);
    return exitOk;
  }
  if (parsed.nodeHost === "linux") return runUpLinux(parsed, io);
  if (parsed.localEtcd) return runUpWithLocalEtcd(parsed, io, (cluster) => runCluster("up", cluster, io));
  return runCluster("up", parsed, io);
}
