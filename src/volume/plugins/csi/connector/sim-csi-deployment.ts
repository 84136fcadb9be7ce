/**
 * A CSI node plugin deployed on a simulated node, as its DaemonSet pod would be: the driver listens
 * on `<root>/plugins/<driver>/csi.sock` and node-driver-registrar announces it in
 * `<root>/plugins_registry/`, where the kubelet finds and registers it. Removing the pod (`stop`)
 * takes both sockets away; a crash (`kill`) leaves stale socket files nobody answers on.
 */
import { posix } from "node:path";
import type { CsiImplementations } from "../../../../csi/grpc/services.ts";
import type { Clock } from "../../../../runtime/clock.ts";
import { csiDriverSocketPath } from "../../../paths.ts";
import { csiDirMode } from "../csi-constants.ts";
import { SimNodeDriverRegistrar } from "../registration/sim-node-driver-registrar.ts";
import { listenOnSimHost, type SimSocketListener, type SocketBindingHost } from "./sim-socket-table.ts";

interface SimCsiDeploymentOptions {
  host: SocketBindingHost;
  clock: Clock;
  rootDir: string;
  /** Names the socket directory (`plugins/<driverName>/csi.sock`); the registrar learns the name from the driver. */
  driverName: string;
  implementations: CsiImplementations;
  /** Versions the registrar announces (`["1.0.0"]` by default). */
  supportedVersions?: readonly string[];
}

export class SimCsiDeployment {
  private constructor(
    readonly driver: SimSocketListener,
    readonly registrar: SimNodeDriverRegistrar,
  ) {}

  static async start(options: SimCsiDeploymentOptions): Promise<SimCsiDeployment> {
    const { host, clock, rootDir } = options;
    const socketPath = csiDriverSocketPath(rootDir, options.driverName);
    await host.mkdir(posix.dirname(socketPath), csiDirMode, { recursive: true });
    const driver = await listenOnSimHost(host, socketPath, {
      kind: "csi",
      implementations: options.implementations,
    });
    const registrar = await SimNodeDriverRegistrar.start({
      host,
      clock,
      rootDir,
      csiSocketPath: socketPath,
      ...(options.supportedVersions === undefined ? {} : { supportedVersions: options.supportedVersions }),
    });
    return new SimCsiDeployment(driver, registrar);
  }

  /** The pod is deleted: both containers shut down and remove their sockets. */
  async stop(): Promise<void> {
    await this.registrar.stop();
    await this.driver.stop();
  }

  /** The pod's containers die at once (OOM, node-plugin crash). */
  kill(): void {
    this.registrar.kill();
    this.driver.kill();
  }
}
