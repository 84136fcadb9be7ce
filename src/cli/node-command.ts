/**
 * `kvol node --server URL --certificate-authority CA --name N (--token T | --token-file F)`, or
 * `kvol node --kubeconfig F --name N`: one simulated node — a machine with a real kubelet — joining
 * the API server at URL over HTTPS as `system:node:N`, until Ctrl-C
 * or SIGTERM. Its token comes from the server's token file (`kvol server --node-tokens N` writes
 * it to DATA/node-tokens/N). Node restriction applies: it may write only its own Node and Lease and
 * the status of the pods bound to it.
 */
import { isIP } from "node:net";
import { parseArgs } from "node:util";
import { defaultCsiNodePlugins } from "../cmd/linux-node-agent.ts";
import { errorMessage } from "../runtime/error-message.ts";
import { Logger, type LogLevel, stderrSink } from "../runtime/logger.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { serverAccessFromFlags, serverFlagOptions, serverFlagsUsage } from "./client/server-flags.ts";
import { type CommandIo, exitFailure, exitOk, exitUsage, processIo } from "./command-io.ts";
import { RemoteNode } from "./embedded/remote-node.ts";
import { runLinuxNode } from "./linux-node-command.ts";
import { parseMaxVolumesPerNode } from "./max-volumes-flag.ts";
import { StoppedBeforeStart, startUnlessStopped } from "./start-unless-stopped.ts";
import { StepProgress } from "./step-progress.ts";

export const nodeUsage = `Usage:
  kvol node (--kubeconfig F | --server URL[,URL…] [--certificate-authority CA]) --name N
            [--token T | --token-file F] [--log-level L] [--host sim|linux]
            [--data-dir D] [--root-dir R] [--csi-node-plugins NAMES|none]
            [--kubelet-port P] [--node-ip IP] [--max-volumes-per-node N] [--fenceable-disks]

Runs one simulated node (a machine with a real kubelet) joined to the API server at URL, until
Ctrl-C. It authenticates as system:node:N; \`kvol server --node-tokens N\` makes its token and
writes it to DATA/node-tokens/N, and the server's certificate authority is DATA/ca.crt.

${serverFlagsUsage}
  --name N          the node's name
  --log-level L     debug, info, warn (default) or error: the kubelet's log on stderr
  --host H          sim (default): a simulated machine; linux: this machine, with real mounts and
                    containers (needs root), in a mount namespace of its own
  --data-dir D      with --host linux: where the node keeps its files, in nodes/N/ (default
                    $KVOL_DATA_DIR or ~/.kvol), and the image store, in images/
  --root-dir R      with --host linux: the kubelet's root directory (default D/nodes/N/kubelet;
                    /var/lib/kubelet for a machine of its own, whose logs then go to /var/log/pods)
  --csi-node-plugins NAMES
                    with --host linux: the bundled CSI drivers whose node plugins the node runs, as
                    kvol csi-driver processes registered through plugins_registry/ (comma-separated;
                    default ${defaultCsiNodePlugins.join(",")}, each where it can run; none for
                    none, e.g. to run your own build of one of them)
  --max-volumes-per-node N
                    with --host linux: the max_volumes_per_node each bundled node plugin answers
                    NodeGetInfo with (kvol csi-driver --max-volumes-per-node; default 16 for
                    disk.csi.kvol.io, no limit for the others): the kubelet writes it to the node's
                    CSINode, and the scheduler places no pod that would go over it
  --fenceable-disks with --host linux: disk.csi.kvol.io's node plugin uses this node's own loop
                    device of each disk, as its controller attaches them (kvol csi-driver
                    --fenceable), so node fencing can cut this node off its disks (docs/fencing.md)
  --kubelet-port P  the port of the node's kubelet server (HTTPS; the API server reaches it for
                    kubectl logs, exec and attach; the kubelet's --port, 10250 in Kubernetes);
                    default 0, a free port, reported in the Node's status
  --node-ip IP      the address the node reports as its InternalIP, where the API server reaches
                    its kubelet (default: the address this machine reaches the API server from)
`;

export interface NodeArguments {
  serverUrl: string;
  /** The certificate authority of an https:// server (PEM); the system's when absent. */
  caPem?: string;
  nodeName: string;
  token: string;
  logLevel: LogLevel;
  host: "sim" | "linux";
  dataDir: string | undefined;
  rootDir: string | undefined;
  /** `--csi-node-plugins`; absent means the default set. */
  csiNodePlugins?: readonly string[];
  /** `--max-volumes-per-node`: the bundled node plugins' NodeGetInfo max_volumes_per_node. */
  maxVolumesPerNode?: number;
  /** `--fenceable-disks`: disk.csi.kvol.io's plugin attaches a loop device per disk and node. */
  fenceableDisks?: boolean;
  kubeletPort: number;
  nodeIp: string | undefined;
}

const maxPort = 65_535;
const logLevels = new Set(["debug", "info", "warn", "error"]);

function hostKind(text: string | undefined): "sim" | "linux" {
  if (text === undefined || text === "sim" || text === "linux") return text ?? "sim";
  throw new Error(`--host must be sim or linux, got "${text}"`);
}

function portOf(text: string | undefined): number {
  if (text === undefined) return 0;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > maxPort)
    throw new Error(`--kubelet-port must be a port number from 0 to ${maxPort}, got "${text}"`);
  return port;
}

function nodeIpOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (isIP(text) === 0) throw new Error(`--node-ip must be an IPv4 or IPv6 address, got "${text}"`);
  return text;
}

export function parseNodeArguments(argv: readonly string[]): NodeArguments | { help: true } {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      ...serverFlagOptions,
      name: { type: "string" },
      "log-level": { type: "string" },
      host: { type: "string" },
      "data-dir": { type: "string" },
      "root-dir": { type: "string" },
      "csi-node-plugins": { type: "string" },
      "kubelet-port": { type: "string" },
      "node-ip": { type: "string" },
      "max-volumes-per-node": { type: "string" },
      "fenceable-disks": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return { help: true };
  if (positionals.length > 0) throw new Error(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const access = serverAccessFromFlags(values);
  if (access === undefined) throw new Error("--server (or --kubeconfig) is required");
  if (access.token === undefined) throw new Error("--token or --token-file is required (or a kubeconfig with a token)");
  if (values.name === undefined || values.name === "") throw new Error("--name is required");
  const host = hostKind(values.host);
  const maxVolumes = values["max-volumes-per-node"];
  for (const [flag, given] of [
    ["--max-volumes-per-node", maxVolumes !== undefined],
    ["--fenceable-disks", values["fenceable-disks"] === true],
  ] as const) {
    if (given && host !== "linux") {
      throw new Error(`${flag} needs --host linux: a simulated node runs no CSI node plugins of its own`);
    }
  }
  const logLevel = values["log-level"] ?? "warn";
  if (!logLevels.has(logLevel)) throw new Error(`--log-level must be debug, info, warn or error, got "${logLevel}"`);
  return {
    serverUrl: access.serverUrl,
    ...(access.caPem === undefined ? {} : { caPem: access.caPem }),
    nodeName: values.name,
    token: access.token,
    logLevel: logLevel as LogLevel,
    host,
    dataDir: values["data-dir"],
    rootDir: values["root-dir"],
    ...(values["csi-node-plugins"] === undefined
      ? {}
      : { csiNodePlugins: csiNodePluginNames(values["csi-node-plugins"]) }),
    ...(maxVolumes === undefined ? {} : { maxVolumesPerNode: parseMaxVolumesPerNode(maxVolumes) }),
    ...(values["fenceable-disks"] ? { fenceableDisks: true } : {}),
    kubeletPort: portOf(values["kubelet-port"]),
    nodeIp: nodeIpOf(values["node-ip"]),
  };
}

/** `--csi-node-plugins a,b` or `none`: bundled driver names, each at most once. */
function csiNodePluginNames(text: string): string[] {
  if (text.trim() === "none") return [];
  const names = text
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  for (const name of names) {
    if (!defaultCsiNodePlugins.includes(name)) {
      throw new Error(
        `--csi-node-plugins: "${name}" is not a bundled CSI driver with a node plugin; choose from ${defaultCsiNodePlugins.join(", ")}, or none`,
      );
    }
  }
  if (names.length === 0) throw new Error(`--csi-node-plugins is empty; give driver names, or none`);
  return [...new Set(names)];
}

export async function runNodeCommand(argv: readonly string[], io: CommandIo = processIo): Promise<number> {
  let parsed: ReturnType<typeof parseNodeArguments>;
  try {
    parsed = parseNodeArguments(argv);
  } catch (error) {
    io.stderr(`kvol node: ${errorMessage(error)}\n\n${nodeUsage}`);
    return exitUsage;
  }
  if ("help" in parsed) {
    io.stdout(nodeUsage);
    return exitOk;
  }
  if (parsed.host === "linux") return runLinuxNode(parsed, io);
  const clock = new RealClock();
  const logger = new Logger({ clock, sink: stderrSink, level: parsed.logLevel });
  const node = new RemoteNode({ ...parsed, clock, logger });
  const progress = new StepProgress(clock, io.stderr);
  const stop = io.stopRequested();
  try {
    await progress.step(`${parsed.nodeName} registered with ${parsed.serverUrl}`, () => startUnlessStopped(node, stop));
  } catch (error) {
    io.stderr(`kvol node: ${errorMessage(error)}\n`);
    await node.stop();
    return error instanceof StoppedBeforeStart ? exitOk : exitFailure;
  }
  io.stdout(`node ${parsed.nodeName} is running; press Ctrl-C to stop.\n`);
  const signal = await stop;
  await progress.step(`stopping (${signal})`, () => node.stop());
  return exitOk;
}
