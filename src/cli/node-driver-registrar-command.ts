/**
 * `kvol node-driver-registrar --csi-address PATH --kubelet-registration-path PATH
 * [--plugin-registration-path DIR] [--timeout D]`: kubernetes-csi's node-driver-registrar, with
 * its flag names, for any CSI driver that does not register itself. It asks the driver its name
 * (Identity/GetPluginInfo, its only CSI call), then serves the kubelet plugin registration API on
 * `DIR/<driver>-reg.sock` over real gRPC until SIGTERM or SIGINT, when it removes the socket (the
 * kubelet then deregisters the driver). When the kubelet refuses the driver it logs why and exits 1.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { connectCsiSocket } from "../csi/grpc/client.ts";
import { unixEndpoint } from "../csi/grpc/endpoint.ts";
import { errorMessage } from "../runtime/error-message.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { defaultKubeletRootDir, pluginsRegistryDir } from "../volume/paths.ts";
import { registrarOperationTimeoutMs } from "../volume/plugins/csi/csi-constants.ts";
import { NodeDriverRegistrar } from "../volume/plugins/csi/registration/node-driver-registrar.ts";
import { type CommandIo, exitFailure, exitOk, exitUsage, processIo } from "./command-io.ts";

const defaultRegistrationDir = pluginsRegistryDir(defaultKubeletRootDir);

export const nodeDriverRegistrarUsage = `Usage:
  kvol node-driver-registrar --csi-address PATH --kubelet-registration-path PATH
                             [--plugin-registration-path DIR] [--timeout D]

Registers a CSI driver with the kubelet, as kubernetes-csi's node-driver-registrar does, until
SIGTERM or SIGINT; exits 1 if the kubelet refuses the driver.
  --csi-address PATH                the driver's CSI socket, as this process reaches it
  --kubelet-registration-path PATH  the driver's CSI socket as the kubelet reaches it (required)
  --plugin-registration-path DIR    the kubelet's plugins_registry directory (default
                                    ${defaultRegistrationDir}; a kvol node's is
                                    DATA/nodes/NAME/kubelet/plugins_registry)
  --timeout D                       deadline of the driver's GetPluginInfo (default 1s; 500ms, 2s, …)
`;

/** How often the driver's socket is looked for while it is not there yet. */
const socketPollIntervalMs = 1_000;

export interface NodeDriverRegistrarArguments {
  csiAddress: string;
  kubeletRegistrationPath: string;
  registrationDir: string;
  timeoutMs: number;
}

/** The parsed arguments, or the sentence saying what is wrong with them. */
export function parseNodeDriverRegistrarArguments(
  argv: readonly string[],
): NodeDriverRegistrarArguments | { error: string } {
  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        "csi-address": { type: "string" },
        "kubelet-registration-path": { type: "string" },
        "plugin-registration-path": { type: "string" },
        timeout: { type: "string" },
      },
    });
    values = parsed.values;
  } catch (error) {
    return { error: errorMessage(error) };
  }
  const csiAddress = values["csi-address"];
  const kubeletPath = values["kubelet-registration-path"];
  const registrationDir = values["plugin-registration-path"] ?? defaultRegistrationDir;
  if (typeof kubeletPath !== "string" || kubeletPath === "") {
    return { error: "--kubelet-registration-path is required: the driver's CSI socket as the kubelet reaches it" };
  }
  if (typeof csiAddress !== "string" || csiAddress === "") return { error: "--csi-address is required" };
  for (const [flag, path] of [
    ["--csi-address", csiAddress],
    ["--kubelet-registration-path", kubeletPath],
    ["--plugin-registration-path", registrationDir],
  ] as const) {
    if (typeof path !== "string" || !path.startsWith("/")) {
      return { error: `${flag} must be an absolute path, got ${JSON.stringify(path)}` };
    }
  }
  const timeoutMs = durationMs(values.timeout);
  if (timeoutMs === undefined) {
    return { error: `--timeout must be a duration like 1s or 500ms, got ${JSON.stringify(values.timeout)}` };
  }
  return {
    csiAddress: csiAddress.replace(/^unix:\/\//, ""),
    kubeletRegistrationPath: kubeletPath,
    registrationDir: String(registrationDir),
    timeoutMs,
  };
}

/** `1s`, `500ms`, `2m` (Go's common duration forms); absent means the registrar's 1 s. */
function durationMs(text: string | boolean | undefined): number | undefined {
  if (text === undefined) return registrarOperationTimeoutMs;
  const match = typeof text === "string" ? /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(text) : null;
  if (match === null) return undefined;
  const unitMs = { ms: 1, s: 1_000, m: 60_000 }[match[2] as "ms" | "s" | "m"];
  const value = Number(match[1]) * unitMs;
  return value > 0 ? value : undefined;
}

export async function runNodeDriverRegistrarCommand(
  argv: readonly string[],
  io: CommandIo = processIo,
): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout(nodeDriverRegistrarUsage);
    return exitOk;
  }
  const parsed = parseNodeDriverRegistrarArguments(argv);
  if ("error" in parsed) {
    io.stderr(`kvol node-driver-registrar: ${parsed.error}\n\n${nodeDriverRegistrarUsage}`);
    return exitUsage;
  }
  const log = (line: string) => io.stdout(`kvol node-driver-registrar: ${line}\n`);
  let stopped = false;
  const stop = io.stopRequested().then((signal) => {
    stopped = true;
    return { signal };
  });
  const clock = new RealClock();
  let driverName: string;
  try {
    const name = await Promise.race([driverNameOf(parsed, clock, log, () => stopped), stop]);
    if (typeof name !== "string") return exitOk;
    driverName = name;
  } catch (error) {
    io.stderr(`kvol node-driver-registrar: error retreiving CSI driver name: ${errorMessage(error)}\n`);
    return exitFailure;
  }
  log(`CSI driver name: ${JSON.stringify(driverName)}`);
  let registrar: NodeDriverRegistrar;
  try {
    registrar = await NodeDriverRegistrar.start({
      driverName,
      kubeletRegistrationPath: parsed.kubeletRegistrationPath,
      registrationDir: parsed.registrationDir,
      log,
    });
  } catch (error) {
    io.stderr(`kvol node-driver-registrar: ${errorMessage(error)}\n`);
    return exitFailure;
  }
  const ended = await Promise.race([stop, registrar.refused.then((reason) => ({ reason }))]);
  await registrar.stop();
  return "reason" in ended ? exitFailure : exitOk;
}

/** Waits for the driver's socket, then asks the driver its name within the timeout. */
async function driverNameOf(
  args: NodeDriverRegistrarArguments,
  clock: RealClock,
  log: (line: string) => void,
  isStopped: () => boolean,
): Promise<string> {
  while (!existsSync(args.csiAddress)) {
    if (isStopped()) return "";
    log(`Still connecting to unix://${args.csiAddress}`);
    await clock.sleep(socketPollIntervalMs);
  }
  const client = connectCsiSocket({ endpoint: unixEndpoint(args.csiAddress), clock, callTimeoutMs: args.timeoutMs });
  try {
    const { name } = await client.getPluginInfo({});
    if (name === "") throw new Error("driver name is empty");
    return name;
  } finally {
    client.close();
  }
}
