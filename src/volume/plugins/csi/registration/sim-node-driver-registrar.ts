/**
 * node-driver-registrar on a simulated node: asks the driver its name (Identity/GetPluginInfo, its
 * only CSI call), then serves the registration API on `<root>/plugins_registry/<name>-reg.sock`,
 * announcing the driver's socket as the endpoint. The kubelet's verdicts are kept in `statuses`
 * (the real registrar logs them and exits on a refusal).
 */
import type { Clock } from "../../../../runtime/clock.ts";
import { csiRegistrationSocketPath, pluginsRegistryDir } from "../../../paths.ts";
import { SimCsiConnector } from "../connector/sim-csi-connector.ts";
import { listenOnSimHost, type SimSocketListener, type SocketBindingHost } from "../connector/sim-socket-table.ts";
import {
  csiDirMode,
  csiPluginType,
  registrarOperationTimeoutMs,
  registrarSupportedVersions,
} from "../csi-constants.ts";
import type { PluginInfo, RegistrationStatus } from "./plugin-registration-api.ts";

interface SimNodeDriverRegistrarOptions {
  host: SocketBindingHost;
  clock: Clock;
  /** The kubelet root directory (`--root-dir`). */
  rootDir: string;
  /** The driver's CSI socket on the node (`--kubelet-registration-path`). */
  csiSocketPath: string;
  /** Announced CSI versions; `["1.0.0"]` by default, as the real registrar sends. */
  supportedVersions?: readonly string[];
}

export class SimNodeDriverRegistrar {
  private constructor(
    readonly driverName: string,
    private readonly listener: SimSocketListener,
    /** Every NotifyRegistrationStatus the kubelet sent, in order. */
    readonly statuses: readonly RegistrationStatus[],
  ) {}

  /** Learns the driver name and starts serving; fails like the registrar when the driver does not answer. */
  static async start(options: SimNodeDriverRegistrarOptions): Promise<SimNodeDriverRegistrar> {
    const { host, clock, rootDir, csiSocketPath } = options;
    const client = new SimCsiConnector({ host, clock, callTimeoutMs: registrarOperationTimeoutMs }).connectDriver(
      csiSocketPath,
    );
    let driverName: string;
    try {
      driverName = (await client.getPluginInfo({})).name;
    } finally {
      client.close();
    }
    if (driverName === "") throw new Error(`driver at ${csiSocketPath} returned an empty name from GetPluginInfo`);
    const info: PluginInfo = {
      type: csiPluginType,
      name: driverName,
      endpoint: csiSocketPath,
      supportedVersions: [...(options.supportedVersions ?? registrarSupportedVersions)],
    };
    await host.mkdir(pluginsRegistryDir(rootDir), csiDirMode, { recursive: true });
    const statuses: RegistrationStatus[] = [];
    const listener = await listenOnSimHost(host, csiRegistrationSocketPath(rootDir, driverName), {
      kind: "registration",
      service: {
        getInfo: async () => structuredClone(info),
        notifyRegistrationStatus: async (status) => {
          statuses.push({ ...status });
        },
      },
    });
    return new SimNodeDriverRegistrar(driverName, listener, statuses);
  }

  get socketPath(): string {
    return this.listener.path;
  }

  /** SIGTERM: the registrar removes its socket, so the kubelet deregisters the driver. */
  stop(): Promise<void> {
    return this.listener.stop();
  }

  /** The registrar dies: its socket file stays behind, nobody answers on it. */
  kill(): void {
    this.listener.kill();
  }
}
