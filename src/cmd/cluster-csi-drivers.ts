/**
 * The CSI drivers a simulated cluster runs (`ClusterOptions.csiDrivers`), deployed as a driver's
 * manifests deploy it:
 * - one controller instance, reached by its external-provisioner and external-attacher
 *   (`ControllerWiring.csiDrivers`). It runs on the first node that gets a kubelet, where its
 *   volumes' data lives (the bundled drivers keep volumes on their node's Host); until that node
 *   exists the sidecars' probes answer Unavailable and they wait, as they would for a pending pod;
 * - one node plugin per kubelet node, on that node's SimHost: its CSI socket under
 *   `<root>/plugins/<driver>/`, and node-driver-registrar's socket in `<root>/plugins_registry/`,
 *   where the node's kubelet finds and registers it (`SimCsiDeployment`);
 * - the CSIDriver object (`attachRequired` when the controller publishes volumes to nodes).
 *
 * `restartNodePlugin(node, driver)` is the node plugin's container restarting: `stop()` (its
 * agent-scope daemons die — FUSE mounts stay, dead) then `start()` (fuse.csi.kvol.io re-establishes
 * them from the API unless `reestablishOnStart: false`). Sockets and registration are untouched.
 */
import type { CSIDriverSpec } from "kubernetes-types/storage/v1.js";
import type { Client } from "../api/client/client.ts";
import { isAlreadyExists } from "../api/errors.ts";
import type { CsiControllerDriver } from "../controllers/csi/sidecar-group.ts";
import type { BundledDriver } from "../csi/drivers/common/bundled-driver.ts";
import { CsiCallHooks } from "../csi/drivers/common/call-hooks.ts";
import { diskDriverName, fuseDriverName, hostpathDriverName, mockDriverName } from "../csi/drivers/common/constants.ts";
import type { DiskBackend } from "../csi/drivers/disk/disk-backend.ts";
import { createDiskDriver, type DiskDriverOptions } from "../csi/drivers/disk/disk-driver.ts";
import { createFuseDriver, type FuseDriverOptions } from "../csi/drivers/fuse/fuse-driver.ts";
import { recoveryApiFromClient } from "../csi/drivers/fuse/recovery-api.ts";
import { createHostpathDriver, type HostpathDriverOptions } from "../csi/drivers/hostpath/hostpath-driver.ts";
import { MockDriver, type MockDriverOptions } from "../csi/drivers/mock/mock-driver.ts";
import type { MockVolume } from "../csi/drivers/mock/mock-volumes.ts";
import { dispatchRpc, implementationOf } from "../csi/grpc/dispatch.ts";
import { CsiError } from "../csi/grpc/errors.ts";
import { connectCsiInProcess } from "../csi/grpc/in-process.ts";
import { csiRpcsOf } from "../csi/grpc/rpcs.ts";
import type { CsiImplementations } from "../csi/grpc/services.ts";
import type { CsiServiceName } from "../csi/proto/load.ts";
import type { SimHost } from "../host/sim/sim-host.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { defaultKubeletRootDir } from "../volume/paths.ts";
import { SimCsiDeployment } from "../volume/plugins/csi/connector/sim-csi-deployment.ts";
import { hookedCsiServices } from "./hooked-csi-services.ts";

/** What every driver entry may set besides its own options. */
interface CommonDriverSettings {
  /** Fields of the CSIDriver object over the defaults (e.g. `podInfoOnMount`). */
  csiDriverSpec?: CSIDriverSpec;
}

export type ClusterFuseDriverOptions = Pick<
  FuseDriverOptions,
  "reestablishOnStart" | "stageUnstage" | "stateDir" | "fuseProgram"
>;
export type ClusterHostpathDriverOptions = Pick<
  HostpathDriverOptions,
  "stateDir" | "nodeLocalTopology" | "attachRequired" | "maxVolumesPerNode" | "capacityLimitBytes"
>;
export type ClusterMockDriverOptions = Pick<MockDriverOptions, "capabilities" | "topology" | "maxVolumesPerNode">;
export type ClusterDiskDriverOptions = Pick<DiskDriverOptions, "maxVolumesPerNode" | "capacityLimitBytes">;

/** One entry of `ClusterOptions.csiDrivers`. */
export type ClusterCsiDriver = CommonDriverSettings &
  (
    | { name: typeof fuseDriverName; options?: ClusterFuseDriverOptions }
    | { name: typeof hostpathDriverName; options?: ClusterHostpathDriverOptions }
    | { name: typeof mockDriverName; options?: ClusterMockDriverOptions }
    | { name: typeof diskDriverName; options?: ClusterDiskDriverOptions }
  );

export interface ClusterCsiDriversOptions {
  drivers: readonly ClusterCsiDriver[];
  client: Client;
  clock: Clock;
  logger: Logger;
  /** The simulated cloud's disks (disk.csi.kvol.io attaches them). */
  disks: DiskBackend;
}

interface NodePlugin {
  driver: BundledDriver;
  /** What the kubelet and the sidecars call: the driver behind `hooks`. */
  served: CsiImplementations;
  /** `kvol fault csi-call-error` and its kin on this instance (mock.csi.kvol.io: its own). */
  hooks: CsiCallHooks;
  /** Undefined while the plugin is unregistered from its node (`unregisterNodePlugin`). */
  deployment: SimCsiDeployment | undefined;
  host: SimHost;
}

function nodePluginKey(nodeName: string, driverName: string): string {
  return `${nodeName}/${driverName}`;
}

/** Whether Kubernetes must attach the driver's volumes (its controller offers PUBLISH_UNPUBLISH_VOLUME). */
function attachRequired(entry: ClusterCsiDriver): boolean {
  switch (entry.name) {
    case fuseDriverName:
      return false;
    case hostpathDriverName:
      return entry.options?.attachRequired ?? false;
    case mockDriverName:
      return entry.options?.capabilities?.publishUnpublish ?? true;
    case diskDriverName:
      return true;
  }
}

export class ClusterCsiDrivers {
  /** driver name → the instance whose controller the sidecars use. */
  private readonly controllers = new Map<string, CsiImplementations>();
  private readonly nodePlugins = new Map<string, NodePlugin>();
  /** The volumes every mock.csi.kvol.io instance shares, so a volume is known on every node. */
  private readonly mockVolumes = new Map<string, MockVolume>();

  constructor(private readonly options: ClusterCsiDriversOptions) {
    const names = options.drivers.map((entry) => entry.name);
    const repeated = names.find((name, index) => names.indexOf(name) !== index);
    if (repeated !== undefined) throw new Error(`csiDrivers: driver ${repeated} is listed more than once`);
  }

  /** The sidecars' view of each driver's controller (wired into `ControllerWiring.csiDrivers`). */
  controllerDrivers(): CsiControllerDriver[] {
    return this.options.drivers.map((entry) => ({
      name: entry.name,
      client: this.forwardingControllerClient(entry.name),
    }));
  }

  /** Creates each driver's CSIDriver object (an existing one is kept). */
  async createDriverObjects(): Promise<void> {
    for (const entry of this.options.drivers) {
      try {
        await this.options.client.csiDrivers.create({
          apiVersion: "storage.k8s.io/v1",
          kind: "CSIDriver",
          metadata: { name: entry.name },
          spec: {
            attachRequired: attachRequired(entry),
            // The drivers that report GetCapacity opt into capacity-aware scheduling.
            ...(entry.name === hostpathDriverName || entry.name === diskDriverName ? { storageCapacity: true } : {}),
            // As csi-driver-host-path's CSIDriver: inline ephemeral volumes, with the pod's information.
            ...(entry.name === hostpathDriverName
              ? { podInfoOnMount: true, volumeLifecycleModes: ["Persistent", "Ephemeral"] }
              : {}),
            ...entry.csiDriverSpec,
          },
        });
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    }
  }

  /** Runs every driver's node plugin on `host` (the first node also runs the controllers). */
  async deployOn(host: SimHost): Promise<void> {
    for (const entry of this.options.drivers) {
      const driver = this.createDriver(entry, host);
      await driver.start();
      const { served, hooks } = this.withHooks(driver);
      if (!this.controllers.has(entry.name)) this.controllers.set(entry.name, served);
      const deployment = await SimCsiDeployment.start({
        host,
        clock: this.options.clock,
        rootDir: defaultKubeletRootDir,
        driverName: entry.name,
        implementations: served,
      });
      this.nodePlugins.set(nodePluginKey(host.nodeName, entry.name), { driver, served, hooks, deployment, host });
    }
  }

  /**
   * The driver's node plugin stops serving on `nodeName`, as when its DaemonSet pod leaves the node:
   * node-driver-registrar's socket and the CSI socket go, so the kubelet deregisters the driver
   * (CSINode and the node's `csi.volume.kubernetes.io/nodeid` annotation lose it) and every CSI call
   * on that node fails with `driver name <driver> not found in the list of registered CSI drivers`.
   * The driver's own state (its volumes, the controller) is kept for `registerNodePlugin`.
   */
  async unregisterNodePlugin(nodeName: string, driverName: string): Promise<void> {
    const plugin = this.requireNodePlugin(nodeName, driverName);
    if (plugin.deployment === undefined) {
      throw new Error(`CSI driver ${driverName} is not registered on node ${nodeName}`);
    }
    await plugin.deployment.stop();
    plugin.deployment = undefined;
    this.options.logger.info("CSI node plugin unregistered", { node: nodeName, driver: driverName });
  }

  /** The node plugin serves on `nodeName` again: its sockets come back and the kubelet registers it. */
  async registerNodePlugin(nodeName: string, driverName: string): Promise<void> {
    const plugin = this.requireNodePlugin(nodeName, driverName);
    if (plugin.deployment !== undefined)
      throw new Error(`CSI driver ${driverName} is already registered on node ${nodeName}`);
    plugin.deployment = await SimCsiDeployment.start({
      host: plugin.host,
      clock: this.options.clock,
      rootDir: defaultKubeletRootDir,
      driverName,
      implementations: plugin.served,
    });
    this.options.logger.info("CSI node plugin registered", { node: nodeName, driver: driverName });
  }

  /** The names of the drivers the cluster runs. */
  driverNames(): string[] {
    return this.options.drivers.map((entry) => entry.name);
  }

  /** The driver instance whose node plugin runs on `nodeName`. */
  nodePlugin(nodeName: string, driverName: string): BundledDriver {
    return this.requireNodePlugin(nodeName, driverName).driver;
  }

  /**
   * The per-RPC hooks of the driver's instance on `nodeName` (its controller's too, when the
   * controller runs there): what `kvol fault csi-call-error` and its kin set.
   */
  callHooks(nodeName: string, driverName: string): CsiCallHooks {
    return this.requireNodePlugin(nodeName, driverName).hooks;
  }

  /** The node plugin's container restarts: its daemons die, then it starts again. */
  async restartNodePlugin(nodeName: string, driverName: string): Promise<void> {
    const { driver } = this.requireNodePlugin(nodeName, driverName);
    await driver.stop();
    await driver.start();
    this.options.logger.info("CSI node plugin restarted", { node: nodeName, driver: driverName });
  }

  /** The driver behind its hooks: mock.csi.kvol.io checks its own, the others get theirs in front. */
  private withHooks(driver: BundledDriver): { served: CsiImplementations; hooks: CsiCallHooks } {
    if (driver.node instanceof MockDriver) return { served: driver, hooks: driver.node.hooks };
    const hooks = new CsiCallHooks(this.options.clock);
    return { served: hookedCsiServices(driver, hooks), hooks };
  }

  private createDriver(entry: ClusterCsiDriver, host: SimHost): BundledDriver {
    const { clock, client, logger } = this.options;
    const nodeId = host.nodeName;
    switch (entry.name) {
      case fuseDriverName:
        return createFuseDriver({
          ...entry.options,
          host,
          clock,
          nodeId,
          api: recoveryApiFromClient(client),
          onWarning: (message) => logger.warn(message, { node: nodeId }),
        });
      case hostpathDriverName:
        return createHostpathDriver({
          ...entry.options,
          host,
          clock,
          nodeId,
          // With attach, the controller publishes to every node that runs a node plugin of the driver.
          isKnownNode: (id) => this.nodePlugins.has(nodePluginKey(id, entry.name)),
        });
      case mockDriverName:
        return new MockDriver({
          ...entry.options,
          clock,
          nodeId,
          host,
          // The controller instance publishes to every node that runs a node plugin of the driver.
          isKnownNode: (id) => this.nodePlugins.has(nodePluginKey(id, entry.name)),
          sharedVolumes: this.mockVolumes,
        }).implementations();
      case diskDriverName:
        return createDiskDriver({
          ...entry.options,
          disks: this.options.disks,
          host,
          nodeId,
          ...(host.options.zone === undefined ? {} : { zone: host.options.zone }),
        });
    }
  }

  private requireNodePlugin(nodeName: string, driverName: string): NodePlugin {
    const plugin = this.nodePlugins.get(nodePluginKey(nodeName, driverName));
    if (plugin === undefined) {
      const known = [...this.nodePlugins.keys()].join(", ") || "none";
      throw new Error(`no node plugin of CSI driver ${driverName} runs on node ${nodeName} (node plugins: ${known})`);
    }
    return plugin;
  }

  /**
   * A client whose every call goes to the driver's controller instance of the moment; Unavailable
   * while there is none yet, which the sidecars treat as "driver still starting".
   */
  private forwardingControllerClient(driverName: string): CsiControllerDriver["client"] {
    const forwarding = (service: CsiServiceName): object =>
      Object.fromEntries(
        csiRpcsOf(service).map((rpc) => [
          rpc.handlerName,
          async (request: unknown) => {
            const controller = this.controllers.get(driverName);
            if (controller === undefined) {
              throw new CsiError(
                "Unavailable",
                `${driverName}: the controller starts on the first node with a kubelet, and there is none yet`,
              );
            }
            const implementation = implementationOf(controller, service);
            if (implementation === undefined) throw new CsiError("Unimplemented", `unknown service csi.v1.${service}`);
            const outcome = await dispatchRpc(implementation, rpc, request);
            if ("error" in outcome) throw outcome.error;
            return outcome.response;
          },
        ]),
      );
    // Each forwarding object carries one method per RPC of its service (built from the RPC table),
    // which is what the service interfaces list.
    const implementations = {
      identity: forwarding("Identity"),
      controller: forwarding("Controller"),
      node: forwarding("Node"),
    } as unknown as CsiImplementations;
    return connectCsiInProcess(implementations);
  }
}
