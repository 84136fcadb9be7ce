/**
 * node-driver-registrar on a real node: serves the kubelet plugin registration API over real gRPC
 * on `<registration dir>/<driver>-reg.sock`, announcing the driver's CSI socket (its host path,
 * `--kubelet-registration-path`) as the endpoint, as kubernetes-csi's registrar does:
 *
 * - a socket left by an earlier run is removed first; the new one is made private to root (0600,
 *   the registrar's umask 0077);
 * - it logs every call; when the kubelet refuses the driver it logs the kubelet's reason
 *   (`Registration process failed with error: …`) and `refused` resolves, so the process exits
 *   non-zero and its supervisor starts it again;
 * - `stop()` (SIGTERM) removes the socket, so the kubelet deregisters the driver.
 */
import { chmod, lstat, unlink } from "node:fs/promises";
import { posix } from "node:path";
import { csiPluginType, registrarSupportedVersions } from "../csi-constants.ts";
import type { PluginInfo, RegistrationStatus } from "./plugin-registration-api.ts";
import { type RegistrationSocketServer, serveRegistrationSocket } from "./registration-socket.ts";

/** The registration socket is root's alone (node-driver-registrar binds it under umask 0077). */
const registrationSocketMode = 0o600;
const registrationSocketSuffix = "-reg.sock";

/** `<dir>/<driver>-reg.sock`, the name the kubelet's plugin watcher expects. */
function registrationSocketPathIn(registrationDir: string, driverName: string): string {
  return posix.join(registrationDir, `${driverName}${registrationSocketSuffix}`);
}

interface NodeDriverRegistrarOptions {
  driverName: string;
  /** The host path of the driver's CSI socket, which the kubelet is told to dial. */
  kubeletRegistrationPath: string;
  /** The kubelet's `plugins_registry/` directory (`--plugin-registration-path`). */
  registrationDir: string;
  /** Announced CSI versions; `["1.0.0"]` by default, as the real registrar sends. */
  supportedVersions?: readonly string[];
  /** Receives the registrar's log lines. */
  log: (line: string) => void;
}

export class NodeDriverRegistrar {
  /** Resolves with the kubelet's reason when it refuses the driver. */
  readonly refused: Promise<string>;
  /** Resolves when the kubelet reports the driver registered. */
  readonly registered: Promise<void>;
  private stopping: Promise<void> | undefined;

  private constructor(
    readonly socketPath: string,
    private readonly server: RegistrationSocketServer,
    outcomes: { refused: Promise<string>; registered: Promise<void> },
  ) {
    this.refused = outcomes.refused;
    this.registered = outcomes.registered;
  }

  static async start(options: NodeDriverRegistrarOptions): Promise<NodeDriverRegistrar> {
    const { driverName, log } = options;
    if (driverName === "") throw new Error("the driver name is empty; the kubelet cannot register a nameless driver");
    const socketPath = registrationSocketPathIn(options.registrationDir, driverName);
    await removeStaleSocket(socketPath);
    const info: PluginInfo = {
      type: csiPluginType,
      name: driverName,
      endpoint: options.kubeletRegistrationPath,
      supportedVersions: [...(options.supportedVersions ?? registrarSupportedVersions)],
    };
    let refuse: (reason: string) => void = () => undefined;
    let accept: () => void = () => undefined;
    const refused = new Promise<string>((resolve) => {
      refuse = resolve;
    });
    const registered = new Promise<void>((resolve) => {
      accept = resolve;
    });
    log(`Starting Registration Server socketPath=${socketPath}`);
    const server = await serveRegistrationSocket(socketPath, {
      getInfo: async () => {
        log("Received GetInfo call: &InfoRequest{}");
        return structuredClone(info);
      },
      notifyRegistrationStatus: async (status) => {
        log(`Received NotifyRegistrationStatus call: ${formatStatus(status)}`);
        if (status.pluginRegistered) {
          accept();
          return;
        }
        log(`Registration process failed with error: ${status.error}, restarting registration container.`);
        refuse(status.error);
      },
    });
    await chmod(socketPath, registrationSocketMode);
    log(`Registration Server started socketPath=${socketPath}`);
    return new NodeDriverRegistrar(socketPath, server, { refused, registered });
  }

  /** Stops serving and removes the socket, so the kubelet deregisters the driver; safe to call twice. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.server.stop();
      await removeStaleSocket(this.socketPath);
    })();
    return this.stopping;
  }
}

/** The message as the registrar's Go log prints it. */
function formatStatus(status: RegistrationStatus): string {
  return `&RegistrationStatus{PluginRegistered:${status.pluginRegistered},Error:${status.error},}`;
}

/** Removes a socket file at `path`; any other kind of file there is an error, never deleted. */
async function removeStaleSocket(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(path)).isSocket();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (!isSocket)
    throw new Error(`${path} exists and is not a socket; remove it or choose another registration directory`);
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
