/**
 * The kubelet's CSI registration (Kubernetes' plugin manager operation generator plus csi_plugin.go
 * RegistrationHandler), run for each socket that appears in `<root>/plugins_registry/`:
 *
 * 1. `Registration/GetInfo` on the registration socket (1 s): type must be `CSIPlugin`; an empty
 *    endpoint means the registration socket itself;
 * 2. validate the offered CSI versions (a 1.x version is needed; a driver of the same name already
 *    registered must be replaced by a strictly newer version);
 * 3. record the driver in the registry, `NodeGetInfo` (csiTimeout), write its node ID, topology and
 *    volume limit into the CSINode and the Node — on failure the driver is unregistered again;
 * 4. `Registration/NotifyRegistrationStatus` (5 s) with the verdict.
 *
 * The kubelet never calls Identity RPCs on the driver. A socket that disappears deregisters its driver.
 */

import { errorMessage } from "../../../../runtime/error-message.ts";
import { goQuote } from "../../../../runtime/go-quote.ts";
import type { VolumeLogger } from "../../../volume-host.ts";
import type { CsiConnector } from "../connector/csi-connector.ts";
import {
  csiMessagePrefix,
  csiPluginType,
  registrationGetInfoTimeoutMs,
  registrationNotifyTimeoutMs,
} from "../csi-constants.ts";
import type { CsiDriverRegistry, RegisteredCsiDriver } from "../csi-driver-registry.ts";
import { type CsiVersion, compareCsiVersions, formatCsiVersion, highestSupportedVersion } from "../csi-version.ts";
import type { PluginInfo, PluginRegistrationClient } from "./plugin-registration-api.ts";

/** What registration writes about a driver (the kubelet's CsiNodeInfo.installDriver takes this). */
export interface CsiDriverNodeInfo {
  driverName: string;
  nodeId: string;
  /** Accessible topology segments, which become Node labels and CSINode topology keys. */
  topology?: Readonly<Record<string, string>>;
  /** max_volumes_per_node; 0 or absent means no limit. */
  maxVolumesPerNode?: number;
}

/** The CSINode / Node writer (the kubelet's CsiNodeInfo). */
interface CsiNodeInfoWriter {
  installDriver(info: CsiDriverNodeInfo): Promise<void>;
  uninstallDriver(driverName: string): Promise<void>;
}

interface CsiRegistrationHandlerOptions {
  connector: CsiConnector;
  drivers: CsiDriverRegistry;
  nodeInfo: CsiNodeInfoWriter;
  logger: VolumeLogger;
}

/** The driver a registration socket registered. */
interface SocketRegistration {
  driverName: string;
  endpoint: string;
}

export class CsiRegistrationHandler {
  private readonly bySocket = new Map<string, SocketRegistration>();

  constructor(private readonly options: CsiRegistrationHandlerOptions) {}

  /** Registers the driver behind `socketPath`; rejects (and tells the registrar) when it cannot. */
  async register(socketPath: string): Promise<void> {
    const registration = this.options.connector.connectRegistration(socketPath);
    try {
      const info = await this.pluginInfo(registration, socketPath);
      const registered = await this.registerPlugin(registration, info, socketPath);
      this.bySocket.set(socketPath, registered);
      await this.notifySuccess(registration, socketPath);
    } finally {
      registration.close();
    }
  }

  /** Forgets the driver registered through `socketPath` and removes it from the CSINode. */
  async deregister(socketPath: string): Promise<void> {
    const registered = this.bySocket.get(socketPath);
    if (registered === undefined) return;
    this.bySocket.delete(socketPath);
    this.options.logger.info(
      `${csiMessagePrefix}registrationHandler.DeRegisterPlugin request for plugin ${registered.driverName}, endpoint ${registered.endpoint}`,
    );
    if (!this.options.drivers.unregister(registered.driverName, registered.endpoint)) return;
    await this.uninstall(registered.driverName);
  }

  private async pluginInfo(registration: PluginRegistrationClient, socketPath: string): Promise<PluginInfo> {
    try {
      return await registration.getInfo(registrationGetInfoTimeoutMs);
    } catch (err) {
      throw new Error(
        `RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket ${socketPath}, err: ${errorMessage(err)}`,
        { cause: err },
      );
    }
  }

  /** Steps 1–3 for a plugin that answered GetInfo; every refusal is reported to the registrar. */
  private async registerPlugin(
    registration: PluginRegistrationClient,
    info: PluginInfo,
    socketPath: string,
  ): Promise<SocketRegistration> {
    if (info.type !== csiPluginType) {
      const message = `RegisterPlugin error -- no handler registered for plugin type: ${info.type} at socket ${socketPath}`;
      await this.notifyFailure(registration, socketPath, message);
      throw new Error(message);
    }
    const endpoint = info.endpoint === "" ? socketPath : info.endpoint;
    let version: CsiVersion;
    try {
      version = this.validateVersions(info.name, info.supportedVersions);
    } catch (err) {
      const message = `RegisterPlugin error -- plugin validation failed with err: ${errorMessage(err)}`;
      await this.notifyFailure(registration, socketPath, message);
      throw new Error("RegisterPlugin error -- pluginHandler.ValidatePluginFunc failed", { cause: err });
    }
    try {
      await this.registerDriver(info.name, endpoint, version);
    } catch (err) {
      const message = `RegisterPlugin error -- plugin registration failed with err: ${errorMessage(err)}`;
      await this.notifyFailure(registration, socketPath, message);
      throw new Error(message, { cause: err });
    }
    return { driverName: info.name, endpoint };
  }

  private validateVersions(driverName: string, versions: readonly string[]): CsiVersion {
    const failed = `${csiMessagePrefix}ValidatePlugin for CSI driver ${goQuote(driverName)} failed.`;
    if (versions.length === 0) throw new Error(`${failed} Plugin returned an empty list for supported versions`);
    let highest: CsiVersion;
    try {
      highest = highestSupportedVersion(versions);
    } catch (err) {
      const quoted = `[${versions.map(goQuote).join(" ")}]`;
      throw new Error(`${failed} None of the versions specified ${quoted} are supported. err=${errorMessage(err)}`);
    }
    const existing = this.options.drivers.get(driverName);
    if (existing !== undefined && compareCsiVersions(existing.highestSupportedVersion, highest) >= 0) {
      const existingVersion = goQuote(formatCsiVersion(existing.highestSupportedVersion));
      throw new Error(
        `${failed} Another driver with the same name is already registered with a higher supported version: ${existingVersion}`,
      );
    }
    return highest;
  }

  /** Records the driver, asks it for its node ID and writes the CSINode; undone on any failure. */
  private async registerDriver(driverName: string, endpoint: string, version: CsiVersion): Promise<void> {
    const { connector, drivers, logger } = this.options;
    logger.info(`${csiMessagePrefix}Register new plugin with name: ${driverName} at endpoint: ${endpoint}`);
    const driver: RegisteredCsiDriver = {
      name: driverName,
      endpoint,
      highestSupportedVersion: version,
      client: connector.connectDriver(endpoint),
      nodeId: "",
      capabilities: undefined,
    };
    drivers.register(driver);
    try {
      const nodeInfo = await driver.client.nodeGetInfo({});
      if (nodeInfo.nodeId === "") throw new Error("error adding CSI driver node info: driverNodeID must not be empty");
      driver.nodeId = nodeInfo.nodeId;
      await this.options.nodeInfo.installDriver({
        driverName,
        nodeId: nodeInfo.nodeId,
        topology: nodeInfo.accessibleTopology?.segments ?? {},
        maxVolumesPerNode: nodeInfo.maxVolumesPerNode,
      });
    } catch (err) {
      if (drivers.unregister(driverName, endpoint)) await this.uninstallLoggingFailure(driverName);
      throw err;
    }
  }

  private async uninstall(driverName: string): Promise<void> {
    try {
      await this.options.nodeInfo.uninstallDriver(driverName);
    } catch (err) {
      throw new Error(`${csiMessagePrefix}Error uninstalling CSI driver: ${errorMessage(err)}`, { cause: err });
    }
  }

  private async uninstallLoggingFailure(driverName: string): Promise<void> {
    try {
      await this.uninstall(driverName);
    } catch (err) {
      this.options.logger.warning(
        `${csiMessagePrefix}registrationHandler.RegisterPlugin failed to unregister plugin due to previous error: ${errorMessage(err)}`,
      );
    }
  }

  private async notifyFailure(
    registration: PluginRegistrationClient,
    socketPath: string,
    error: string,
  ): Promise<void> {
    try {
      await registration.notifyRegistrationStatus({ pluginRegistered: false, error }, registrationNotifyTimeoutMs);
    } catch (err) {
      throw new Error(
        `RegisterPlugin error -- failed to send error at socket ${socketPath}, err: ${errorMessage(err)}`,
        {
          cause: err,
        },
      );
    }
  }

  /** The driver is registered whatever happens here; a registrar that cannot hear it is only logged. */
  private async notifySuccess(registration: PluginRegistrationClient, socketPath: string): Promise<void> {
    try {
      await registration.notifyRegistrationStatus({ pluginRegistered: true, error: "" }, registrationNotifyTimeoutMs);
    } catch (err) {
      this.options.logger.warning(
        `RegisterPlugin error -- failed to send registration status at socket ${socketPath}, err: ${errorMessage(err)}`,
      );
    }
  }
}
