/**
 * The plugins the attach/detach controller runs and the VolumeHost they get: no node, API reads
 * from the client (NotFound = absent), log lines into the controller's logger. The in-tree plugins
 * come with the simulated disk provider (sim-disk attaches there); CSI volumes attach through
 * VolumeAttachments read from the shared informers.
 */
import type { ConfigMap, PersistentVolume, Pod, Secret } from "kubernetes-types/core/v1.js";
import type { CSIDriver, VolumeAttachment } from "kubernetes-types/storage/v1.js";
import type { Client } from "../../api/client/client.ts";
import { isApiError } from "../../api/errors.ts";
import type { Lister } from "../../api/informer/lister.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { Rng } from "../../runtime/rng.ts";
import type { VolumePlugin } from "../../volume/plugin.ts";
import { CsiAttacher } from "../../volume/plugins/csi/csi-attacher.ts";
import { inTreeVolumePlugins } from "../../volume/plugins/in-tree-plugins.ts";
import type { SimDiskProvider } from "../../volume/plugins/simdisk/sim-disk-attacher.ts";
import type { VolumeApi, VolumeHost } from "../../volume/volume-host.ts";
import { CsiAttachPlugin } from "./csi/csi-attach-plugin.ts";

async function orAbsent<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (isApiError(err, "NotFound")) return undefined;
    throw err;
  }
}

function clientVolumeApi(client: Client): VolumeApi {
  return {
    getSecret: (namespace, name): Promise<Secret | undefined> => orAbsent(() => client.secrets.get(namespace, name)),
    getConfigMap: (namespace, name): Promise<ConfigMap | undefined> =>
      orAbsent(() => client.configMaps.get(namespace, name)),
    getPod: (namespace, name): Promise<Pod | undefined> => orAbsent(() => client.pods.get(namespace, name)),
    getPersistentVolume: (name): Promise<PersistentVolume | undefined> =>
      orAbsent(() => client.persistentVolumes.get("", name)),
  };
}

interface ControllerPluginsOptions {
  client: Client;
  clock: Clock;
  rng: Rng;
  logger: Logger;
  csiTimeoutMs: number;
  volumeAttachments: Lister<VolumeAttachment>;
  csiDrivers: Lister<CSIDriver>;
  simDiskProvider?: SimDiskProvider;
}

export function controllerVolumeHost(options: ControllerPluginsOptions): VolumeHost {
  const logger = options.logger;
  return {
    clock: options.clock,
    rng: options.rng.stream("attachdetach/volume-host"),
    logger: { info: (message) => logger.info(message), warning: (message) => logger.warn(message) },
    api: clientVolumeApi(options.client),
  };
}

/** The in-tree plugins and the controller side of CSI. */
export function controllerVolumePlugins(options: ControllerPluginsOptions): VolumePlugin[] {
  const { client } = options;
  const csi = new CsiAttacher({
    api: {
      createVolumeAttachment: (attachment) => client.volumeAttachments.create(attachment),
      deleteVolumeAttachment: (name) => client.volumeAttachments.delete("", name),
      getVolumeAttachment: (name) => client.volumeAttachments.get("", name),
      cachedVolumeAttachment: (name) => options.volumeAttachments.get("", name),
      cachedCsiDriver: (name) => options.csiDrivers.get("", name),
    },
    clock: options.clock,
    rng: options.rng.stream("attachdetach/csi"),
    csiTimeoutMs: options.csiTimeoutMs,
  });
  const inTree = inTreeVolumePlugins(
    options.simDiskProvider === undefined ? {} : { simDiskProvider: options.simDiskProvider },
  );
  return [...inTree, new CsiAttachPlugin(csi)];
}
