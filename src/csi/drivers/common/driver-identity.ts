/**
 * The Identity service of a bundled driver: its name and version, its plugin capabilities, and a
 * Probe that answers at once and without side effects (sidecars and the livenessprobe call it
 * every second).
 */
import type { CsiIdentity } from "../../grpc/services.ts";
import type {
  GetPluginCapabilitiesResponse,
  GetPluginInfoResponse,
  PluginCapability,
  ProbeResponse,
} from "../../proto/types.ts";
import { bundledDriverVersion } from "./constants.ts";
import { type VolumeExpansionMode, volumeExpansionCapability } from "./expansion.ts";

interface DriverIdentityOptions {
  name: string;
  /** True when the endpoint serves a Controller service. */
  controllerService: boolean;
  /** True when volumes are reachable from some nodes only (topology in CreateVolume and NodeGetInfo). */
  accessibilityConstraints: boolean;
  /** The VolumeExpansion plugin capability, for a driver that grows volumes. */
  volumeExpansion?: VolumeExpansionMode;
}

export class DriverIdentity implements CsiIdentity {
  constructor(private readonly options: DriverIdentityOptions) {}

  async getPluginInfo(): Promise<GetPluginInfoResponse> {
    return { name: this.options.name, vendorVersion: bundledDriverVersion, manifest: {} };
  }

  async getPluginCapabilities(): Promise<GetPluginCapabilitiesResponse> {
    const capabilities: PluginCapability[] = [];
    if (this.options.controllerService) capabilities.push({ service: { type: "CONTROLLER_SERVICE" } });
    if (this.options.accessibilityConstraints) {
      capabilities.push({ service: { type: "VOLUME_ACCESSIBILITY_CONSTRAINTS" } });
    }
    if (this.options.volumeExpansion !== undefined) {
      capabilities.push(volumeExpansionCapability(this.options.volumeExpansion));
    }
    return { capabilities };
  }

  async probe(): Promise<ProbeResponse> {
    return { ready: { value: true } };
  }
}
