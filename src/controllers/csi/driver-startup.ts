/**
 * What a kubernetes-csi sidecar does before it handles any object (csi-lib-utils, spec csi-wire
 * §3.4 step A): Probe until the driver is ready, GetPluginInfo for its name, then
 * GetPluginCapabilities and ControllerGetCapabilities, which decide how the sidecar behaves
 * (topology, attach or not, access-mode mapping).
 *
 * Probe answering `ready: false`, DeadlineExceeded or Unavailable means "not yet": probe again a
 * second later. Any other failure would make the real sidecar exit and be restarted by its pod;
 * here it is logged and the probing goes on, which a user sees the same way: nothing is handled
 * until the driver answers.
 */
import { CsiError } from "../../csi/grpc/errors.ts";
import type { ControllerRpcType, EnumValue, PluginServiceType } from "../../csi/proto/types.ts";
import type { Clock } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { driverProbeIntervalMs } from "./constants.ts";
import { type CsiControllerClient, callWithTimeout } from "./driver-connection.ts";

/** What the sidecar learnt about its driver at startup. */
export interface DriverInfo {
  name: string;
  pluginCapabilities: ReadonlySet<EnumValue<PluginServiceType>>;
  controllerCapabilities: ReadonlySet<EnumValue<ControllerRpcType>>;
  /** The VolumeExpansion plugin capability (ONLINE / OFFLINE), when the driver announces one. */
  volumeExpansion: string | number | undefined;
}

export interface DriverStartupOptions {
  driver: CsiControllerClient;
  /** The driver name the sidecar was configured for; the driver must report the same. */
  expectedName: string;
  clock: Clock;
  logger: Logger;
  callTimeoutMs: number;
  /** Checked between attempts: once true, startup gives up and resolves undefined. */
  isStopped: () => boolean;
}

/** Probe answers that mean "the driver is still starting": keep probing. */
const notReadyCodes: ReadonlySet<string> = new Set(["DeadlineExceeded", "Unavailable"]);

/** Waits for the driver and reads its identity; undefined when the sidecar was stopped first. */
export async function connectToDriver(options: DriverStartupOptions): Promise<DriverInfo | undefined> {
  while (!options.isStopped()) {
    try {
      if (await probeOnce(options)) return await readDriverInfo(options);
    } catch (error) {
      options.logger.error("CSI driver not usable yet; will probe it again", { error: errorMessage(error) });
    }
    await options.clock.sleep(driverProbeIntervalMs);
  }
  return undefined;
}

/** True when ready; false for the answers that only mean "not yet". */
async function probeOnce(options: DriverStartupOptions): Promise<boolean> {
  try {
    const response = await callWithTimeout(options.clock, options.callTimeoutMs, () => options.driver.probe({}));
    if (response.ready === null || response.ready.value) return true;
    options.logger.info("CSI driver is not ready yet", { driver: options.expectedName });
    return false;
  } catch (error) {
    if (error instanceof CsiError && notReadyCodes.has(error.code)) {
      options.logger.info("CSI driver did not answer the probe yet", { error: error.message });
      return false;
    }
    throw new Error(`CSI driver probe failed: ${errorMessage(error)}`);
  }
}

async function readDriverInfo(options: DriverStartupOptions): Promise<DriverInfo> {
  const call = <T>(fn: () => Promise<T>) => callWithTimeout(options.clock, options.callTimeoutMs, fn);
  const info = await call(() => options.driver.getPluginInfo({}));
  if (info.name !== options.expectedName) {
    throw new Error(
      `the CSI driver reports its name as "${info.name}" but this sidecar serves "${options.expectedName}"; ` +
        "point the sidecar at the right driver or configure it with the driver's name",
    );
  }
  const plugin = await call(() => options.driver.getPluginCapabilities({}));
  const pluginCapabilities = new Set(plugin.capabilities.flatMap((c) => (c.service ? [c.service.type] : [])));
  const controllerCapabilities = new Set<EnumValue<ControllerRpcType>>();
  if (pluginCapabilities.has("CONTROLLER_SERVICE")) {
    const controller = await call(() => options.driver.controllerGetCapabilities({}));
    for (const capability of controller.capabilities)
      if (capability.rpc) controllerCapabilities.add(capability.rpc.type);
  }
  const volumeExpansion = plugin.capabilities.find((c) => c.volumeExpansion !== undefined)?.volumeExpansion?.type;
  return { name: info.name, pluginCapabilities, controllerCapabilities, volumeExpansion };
}
