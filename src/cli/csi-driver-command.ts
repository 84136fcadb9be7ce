/**
 * `kvol csi-driver NAME --endpoint unix:///path/csi.sock [--node-id N] [--state-dir D]
 * [--registration-dir DIR]`: runs one bundled CSI driver as its own process, on a real Unix socket
 * with the real gRPC server, acting on this machine (LinuxHost) on real time — what a driver
 * container does in a cluster. With `--registration-dir` (the kubelet's `plugins_registry/`) it also
 * runs node-driver-registrar's part, so the node's kubelet registers it; a refusal by the kubelet
 * ends the process with status 1, as the registrar container ends.
 * With `--kubeconfig` or `--server` (the connection flags `kvol node` takes, server-flags.ts),
 * fuse.csi.kvol.io reads from the API, when it starts, which mounts it served on this node, and
 * re-establishes those whose FUSE daemon died with a previous run (seed 003).
 * SIGTERM or SIGINT stop it cleanly: the registration socket goes first (the kubelet deregisters
 * the driver), calls in flight are answered, then the plugin stops.
 * Bad arguments print the usage and exit 2.
 */
import { mkdir } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { HttpClient } from "../api/client/http-client.ts";
import { bundledDriverNames, createBundledDriver } from "../csi/drivers/bundled-drivers.ts";
import { capacityLimitDrivers, parseCapacityLimit } from "../csi/drivers/common/capacity-limit.ts";
import { diskDriverName, fuseDriverName } from "../csi/drivers/common/constants.ts";
import { loopFenceToolsMissing } from "../csi/drivers/disk/loop-fence.ts";
import { type S3fsOptions, s3fsCommand } from "../csi/drivers/fuse/fuse-program.ts";
import { recoveryApiFromClient } from "../csi/drivers/fuse/recovery-api.ts";
import { socketPathOf } from "../csi/grpc/endpoint.ts";
import { serveCsi } from "../csi/grpc/server.ts";
import { LinuxHost } from "../host/linux/linux-host.ts";
import { errorMessage } from "../runtime/error-message.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { NodeDriverRegistrar } from "../volume/plugins/csi/registration/node-driver-registrar.ts";
import {
  type ServerAccess,
  serverAccessFromFlags,
  serverFlagOptions,
  serverFlagsUsage,
} from "./client/server-flags.ts";
import { parseMaxVolumesPerNode } from "./max-volumes-flag.ts";

export const csiDriverUsage = `Usage:
  kvol csi-driver NAME --endpoint unix:///path/csi.sock [--node-id N] [--state-dir D]
                       [--registration-dir DIR] [--capacity-limit 10Gi]
                       [--max-volumes-per-node N] [--fenceable]
                       [--kubeconfig F | --server URL[,URL…] [--certificate-authority CA]]
                       [--token T | --token-file F]
                       [--kubelet-root-dir D]
                       [--s3-url URL --s3-bucket B --s3-passwd-file F]

Runs a bundled CSI driver on a Unix socket until SIGTERM or SIGINT.
  NAME                ${bundledDriverNames.join(", ")}
  --endpoint          the socket to serve, unix:///absolute/path (required)
  --node-id           NodeGetInfo's node id, and the node whose pods it serves (default: this
                      machine's host name)
  --state-dir         where the driver keeps its volumes and catalog (disk.csi.kvol.io: its disks,
                      sparse files attached as loop devices) (default: the driver's own)
  --capacity-limit    ${capacityLimitDrivers.join(", ")}: all volumes together may take at most
                      this (a quantity), which GetCapacity reports (default: the size of the
                      filesystem holding them)
  --max-volumes-per-node N
                      NodeGetInfo's max_volumes_per_node: how many of the driver's volumes the node
                      may have; the kubelet writes it to the CSINode's allocatable count, which the
                      scheduler obeys (default 16 for ${diskDriverName}, 0 = no limit for the others)
  --fenceable         ${diskDriverName}: attach each disk to each node through the node's own loop
                      device, over STATE-DIR/nodes/<node>/<disk>.img, whose offset node fencing moves
                      past the disk's end so every I/O fails (docs/fencing.md); needs losetup, perl
                      and the loop driver, and must be given to the controller and every node plugin alike
  --registration-dir  the kubelet's plugins_registry directory (<root-dir>/plugins_registry): serve
                      the plugin registration API on DIR/NAME-reg.sock there, as node-driver-registrar
                      does, so that node's kubelet registers the driver; exits 1 if the kubelet refuses
  The API server, read by ${fuseDriverName} on start to re-establish the FUSE mounts a previous
  run served (none by default):
${serverFlagsUsage}
  --kubelet-root-dir  the kubelet's root directory, where those mounts are (default: /var/lib/kubelet)
  --s3-url, --s3-bucket, --s3-passwd-file
                      ${fuseDriverName} serves each volume from a prefix of this bucket with s3fs
                      (the file holds ACCESS_KEY:SECRET_KEY, mode 0600), instead of a directory with bindfs
`;

/** Exit status for bad arguments, as for every kvol command. */
const usageExitStatus = 2;
/** Exit status when the driver cannot start (a missing FUSE program, a socket that cannot be bound). */
const startFailureExitStatus = 1;
/** Exit status when the kubelet refuses the driver's registration (node-driver-registrar exits 1 too). */
const refusedExitStatus = 1;
/** The mode of a socket directory the command makes (the kubelet's plugin directories are 0750). */
const socketDirMode = 0o750;
/** The FUSE program fuse.csi.kvol.io runs on a real node. */
const realNodeFuseProgram = "bindfs";

export interface CsiDriverArguments {
  driverName: string;
  endpoint: string;
  nodeId: string;
  stateDir?: string;
  /** The kubelet's plugins_registry directory: register with that node's kubelet. */
  registrationDir?: string;
  /** The API server, its CA and token, from `--kubeconfig` / `--server` and the flags beside them. */
  server?: ServerAccess;
  kubeletRootDir?: string;
  s3?: S3fsOptions;
  /** `--capacity-limit`, in bytes. */
  capacityLimitBytes?: number;
  /** `--max-volumes-per-node`: NodeGetInfo's max_volumes_per_node. */
  maxVolumesPerNode?: number;
  /** `--fenceable`: disk.csi.kvol.io attaches a loop device per disk and node. */
  fenceable?: boolean;
}

/** The parsed arguments, or the sentence saying what is wrong with them. */
export function parseCsiDriverArguments(argv: readonly string[]): CsiDriverArguments | { error: string } {
  let parsed: ReturnType<typeof parseArgsStrictly>;
  try {
    parsed = parseArgsStrictly(argv);
  } catch (error) {
    return { error: errorMessage(error) };
  }
  const { positionals, values } = parsed;
  const [driverName, ...extra] = positionals;
  if (driverName === undefined) return { error: "the driver NAME is missing" };
  if (extra.length > 0) return { error: `unexpected argument ${JSON.stringify(extra[0])}` };
  if (!bundledDriverNames.includes(driverName)) {
    return {
      error: `no bundled driver is named ${JSON.stringify(driverName)}; choose one of ${bundledDriverNames.join(", ")}`,
    };
  }
  if (values.endpoint === undefined) return { error: "--endpoint is required" };
  try {
    socketPathOf(values.endpoint);
  } catch (error) {
    return { error: errorMessage(error) };
  }
  if (values["node-id"] === "") return { error: "--node-id must not be empty" };
  for (const flag of ["state-dir", "kubelet-root-dir", "s3-passwd-file"] as const) {
    const value = values[flag];
    if (value !== undefined && !value.startsWith("/")) {
      return { error: `--${flag} must be an absolute path, got ${JSON.stringify(value)}` };
    }
  }
  const registrationDir = values["registration-dir"];
  if (registrationDir !== undefined && !registrationDir.startsWith("/")) {
    return { error: `--registration-dir must be an absolute path, got ${JSON.stringify(registrationDir)}` };
  }
  let server: ServerAccess | undefined;
  try {
    server = serverAccessFromFlags(values);
  } catch (error) {
    return { error: errorMessage(error) };
  }
  for (const flag of ["token", "token-file"] as const) {
    if (values[flag] !== undefined && server === undefined)
      return { error: `--${flag} needs --server (or --kubeconfig)` };
  }
  const s3 = s3OptionsOf(driverName, values);
  if (typeof s3 === "string") return { error: s3 };
  const capacityLimit = capacityLimitOf(driverName, values["capacity-limit"]);
  if (typeof capacityLimit === "string") return { error: capacityLimit };
  let maxVolumesPerNode: number | undefined;
  try {
    const text = values["max-volumes-per-node"];
    maxVolumesPerNode = text === undefined ? undefined : parseMaxVolumesPerNode(text);
  } catch (error) {
    return { error: errorMessage(error) };
  }
  if (values.fenceable && driverName !== diskDriverName) {
    return { error: `--fenceable is for ${diskDriverName} only (the driver whose disks node fencing can fence)` };
  }
  return {
    driverName,
    endpoint: values.endpoint,
    nodeId: values["node-id"] ?? hostname(),
    ...(values["state-dir"] === undefined ? {} : { stateDir: values["state-dir"] }),
    ...(registrationDir === undefined ? {} : { registrationDir }),
    ...(server === undefined ? {} : { server }),
    ...(values["kubelet-root-dir"] === undefined ? {} : { kubeletRootDir: values["kubelet-root-dir"] }),
    ...(s3 === undefined ? {} : { s3 }),
    ...(capacityLimit === undefined ? {} : { capacityLimitBytes: capacityLimit }),
    ...(maxVolumesPerNode === undefined ? {} : { maxVolumesPerNode }),
    ...(values.fenceable ? { fenceable: true } : {}),
  };
}

/** `--capacity-limit` in bytes, for a driver that reports capacity; else what is wrong. */
function capacityLimitOf(driverName: string, text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  if (!capacityLimitDrivers.includes(driverName)) {
    return `--capacity-limit applies to ${capacityLimitDrivers.join(" and ")} (the drivers that report GetCapacity), not ${driverName}`;
  }
  try {
    return parseCapacityLimit(text, "--capacity-limit");
  } catch (error) {
    return errorMessage(error);
  }
}

function parseArgsStrictly(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      endpoint: { type: "string" },
      "node-id": { type: "string" },
      "state-dir": { type: "string" },
      "registration-dir": { type: "string" },
      ...serverFlagOptions,
      "kubelet-root-dir": { type: "string" },
      "s3-url": { type: "string" },
      "s3-bucket": { type: "string" },
      "s3-passwd-file": { type: "string" },
      "capacity-limit": { type: "string" },
      "max-volumes-per-node": { type: "string" },
      fenceable: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}

export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Resolves with the signal's name when the process is asked to stop. */
  stopRequested: () => Promise<string>;
}

const processIo: CommandIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stopRequested: () =>
    new Promise((resolve) => {
      for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => resolve(signal));
    }),
};

/** Runs the command; resolves with the exit status once the driver has stopped. */
export async function runCsiDriverCommand(argv: readonly string[], io: CommandIo = processIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout(csiDriverUsage);
    return 0;
  }
  const parsed = parseCsiDriverArguments(argv);
  if ("error" in parsed) {
    io.stderr(`kvol csi-driver: ${parsed.error}\n\n${csiDriverUsage}`);
    return usageExitStatus;
  }
  try {
    return await serveUntilStopped(parsed, io);
  } catch (error) {
    io.stderr(`kvol csi-driver: ${errorMessage(error)}\n`);
    return startFailureExitStatus;
  }
}

async function serveUntilStopped(args: CsiDriverArguments, io: CommandIo): Promise<number> {
  const warn = (message: string) => io.stderr(`kvol csi-driver: ${message}\n`);
  const host = new LinuxHost({ nodeName: args.nodeId, onWarning: warn });
  const fuseProgram = args.s3 === undefined ? realNodeFuseProgram : s3fsCommand;
  if (args.driverName === fuseDriverName && !(await host.hasCommand(fuseProgram))) {
    throw new Error(
      `${fuseDriverName} serves volumes with ${fuseProgram}, which is not on PATH; install it first (Debian and Ubuntu: apt-get install ${fuseProgram})`,
    );
  }
  if (args.fenceable) {
    const missing = await loopFenceToolsMissing(host);
    if (missing !== undefined) throw new Error(`--fenceable needs loop devices it can fence, and ${missing}`);
  }
  const driver = createBundledDriver(args.driverName, {
    host,
    clock: new RealClock(),
    nodeId: args.nodeId,
    fuseProgram,
    ...(args.s3 === undefined ? {} : { s3: args.s3 }),
    onWarning: warn,
    ...(args.stateDir === undefined ? {} : { stateDir: args.stateDir }),
    ...(args.server === undefined ? {} : { api: recoveryApiFromClient(apiClientOf(args.server)) }),
    ...(args.kubeletRootDir === undefined ? {} : { kubeletRootDir: args.kubeletRootDir }),
    ...(args.capacityLimitBytes === undefined ? {} : { capacityLimitBytes: args.capacityLimitBytes }),
    ...(args.maxVolumesPerNode === undefined ? {} : { maxVolumesPerNode: args.maxVolumesPerNode }),
    ...(args.fenceable ? { fenceableDisks: true } : {}),
  });
  if (driver === undefined) throw new Error(`no bundled driver is named ${args.driverName}`);
  const stopRequested = io.stopRequested();
  await driver.start();
  // The socket's directory is the driver's own (a DaemonSet mounts it with DirectoryOrCreate).
  await mkdir(dirname(socketPathOf(args.endpoint)), { recursive: true, mode: socketDirMode });
  const server = await serveCsi({ endpoint: args.endpoint, ...driver });
  io.stdout(`kvol csi-driver: serving ${driver.name} on ${args.endpoint} as node ${args.nodeId}\n`);
  let registrar: NodeDriverRegistrar | undefined;
  try {
    if (args.registrationDir !== undefined) {
      registrar = await NodeDriverRegistrar.start({
        driverName: driver.name,
        kubeletRegistrationPath: socketPathOf(args.endpoint),
        registrationDir: args.registrationDir,
        log: (line) => io.stdout(`kvol csi-driver: ${line}\n`),
      });
    }
    const ended = await Promise.race([
      stopRequested.then((signal) => ({ signal })),
      ...(registrar === undefined ? [] : [registrar.refused.then((reason) => ({ reason }))]),
    ]);
    if ("signal" in ended) io.stdout(`kvol csi-driver: ${ended.signal} received, stopping\n`);
    return "reason" in ended ? refusedExitStatus : 0;
  } finally {
    // The registration socket goes first, so the kubelet stops sending calls before the driver stops.
    await registrar?.stop();
    await server.stop();
    await driver.stop();
  }
}

function apiClientOf(access: ServerAccess): HttpClient {
  return new HttpClient({
    url: access.serverUrl,
    ...(access.token === undefined ? {} : { bearerToken: access.token }),
    ...(access.caPem === undefined ? {} : { caPem: access.caPem }),
  });
}

type ParsedValues = ReturnType<typeof parseArgsStrictly>["values"];

/** The s3fs options: all three flags or none, and only for the FUSE driver; else what is wrong. */
function s3OptionsOf(driverName: string, values: ParsedValues): S3fsOptions | undefined | string {
  const url = values["s3-url"];
  const bucket = values["s3-bucket"];
  const passwdFile = values["s3-passwd-file"];
  if (url === undefined && bucket === undefined && passwdFile === undefined) return undefined;
  if (driverName !== fuseDriverName) return `--s3-url, --s3-bucket and --s3-passwd-file are for ${fuseDriverName} only`;
  if (url === undefined || bucket === undefined || passwdFile === undefined) {
    return "--s3-url, --s3-bucket and --s3-passwd-file go together; give all three";
  }
  if (!/^https?:\/\/./.test(url)) return `--s3-url must be an http:// or https:// URL, got ${JSON.stringify(url)}`;
  if (bucket === "" || bucket.includes("/")) return `--s3-bucket must be a bucket name, got ${JSON.stringify(bucket)}`;
  return { url, bucket, passwdFile };
}
