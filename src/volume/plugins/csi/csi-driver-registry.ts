/**
 * The CSI drivers registered on this node (Kubernetes' `csiDrivers` store in csi_plugin.go): driver
 * name → where it listens, the connection to it, the CSI version it speaks, the node ID it
 * reported and the node capabilities it last answered. Registration (csi-registration-handler.ts)
 * fills it; every node operation looks its driver up here, and a driver that is not (yet)
 * registered fails with the text Kubernetes uses, which the plugin reports as a transient failure.
 */
import type { CsiIdentity, CsiNode } from "../../../csi/grpc/services.ts";
import type { NodeRpcType } from "../../../csi/proto/types.ts";
import type { CsiVersion } from "./csi-version.ts";

/** The services the kubelet calls on a driver (it never calls Controller RPCs). */
export interface CsiNodeClient extends CsiIdentity, CsiNode {
  /** Releases the connection; later calls fail with Canceled. */
  close(): void;
}

export interface RegisteredCsiDriver {
  readonly name: string;
  /** The driver's socket path on the node (`PluginInfo.endpoint`). */
  readonly endpoint: string;
  readonly highestSupportedVersion: CsiVersion;
  readonly client: CsiNodeClient;
  /** What NodeGetInfo reported; empty until registration has asked. */
  nodeId: string;
  /** The node capabilities of the driver's last NodeGetCapabilities answer; undefined before the first. */
  capabilities: readonly NodeRpcType[] | undefined;
}

/** Kubernetes' newCsiDriverClient error for a driver the kubelet does not know. */
export class CsiDriverNotRegistered extends Error {
  constructor(readonly driverName: string) {
    super(
      driverName === ""
        ? "driver name is empty"
        : `driver name ${driverName} not found in the list of registered CSI drivers`,
    );
    this.name = "CsiDriverNotRegistered";
  }
}

export class CsiDriverRegistry {
  private readonly drivers = new Map<string, RegisteredCsiDriver>();

  /** Adds or replaces `driver`; a replaced driver's connection is closed. */
  register(driver: RegisteredCsiDriver): void {
    const previous = this.drivers.get(driver.name);
    if (previous !== undefined && previous.client !== driver.client) previous.client.close();
    this.drivers.set(driver.name, driver);
  }

  /** Removes `name` and closes its connection; when `endpoint` is given, only the registration at that endpoint. */
  unregister(name: string, endpoint?: string): boolean {
    const driver = this.drivers.get(name);
    if (driver === undefined || (endpoint !== undefined && driver.endpoint !== endpoint)) return false;
    this.drivers.delete(name);
    driver.client.close();
    return true;
  }

  get(name: string): RegisteredCsiDriver | undefined {
    return this.drivers.get(name);
  }

  /** The registered driver named `name`, or CsiDriverNotRegistered. */
  require(name: string): RegisteredCsiDriver {
    const driver = name === "" ? undefined : this.drivers.get(name);
    if (driver === undefined) throw new CsiDriverNotRegistered(name);
    return driver;
  }

  /** Registered driver names, sorted. */
  names(): string[] {
    return [...this.drivers.keys()].sort();
  }

  /** Closes every connection (the kubelet process ends) and forgets every driver. */
  closeAll(): void {
    for (const driver of this.drivers.values()) driver.client.close();
    this.drivers.clear();
  }
}
