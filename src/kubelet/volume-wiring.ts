/**
 * What the node agent hands its volume plugins and volume manager: the VolumeApi (secrets, config
 * maps, pods and PVs read from the API server), the Mounter over the node's Host, and the plugin
 * registry with every in-tree plugin.
 */
import type { Client } from "../api/client/client.ts";
import type { Host } from "../host/host.ts";
import { Mounter } from "../host/mount/mounter.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { Rng } from "../runtime/rng.ts";
import type { VolumePlugin } from "../volume/plugin.ts";
import { VolumePluginManager } from "../volume/plugin-manager.ts";
import type { CsiPluginOptions } from "../volume/plugins/csi/csi-plugin.ts";
import { inTreeVolumePlugins } from "../volume/plugins/in-tree-plugins.ts";
import type { NodeVolumeContext, VolumeHost, VolumeLogger } from "../volume/volume-host.ts";
import { ClientVolumeApi } from "./volumemanager/client-volume-api.ts";

/** mount-utils and the plugins log through the kubelet's logger. */
export function volumeLogger(logger: Logger): VolumeLogger {
  return {
    info: (message) => logger.info(message),
    warning: (message) => logger.warn(message),
  };
}

interface NodeVolumeWiringOptions {
  client: Client;
  clock: Clock;
  rng: Rng;
  logger: Logger;
  host: Host;
  nodeName: string;
  rootDir: string;
  allocatable?: Readonly<Record<string, string>>;
  /** Plugins besides the in-tree ones (test plugins). */
  extraPlugins?: readonly VolumePlugin[];
  /** The CSI plugin's driver registry and API reads; without it `kubernetes.io/csi` is not registered. */
  csi?: CsiPluginOptions;
}

interface NodeVolumeWiring {
  node: NodeVolumeContext;
  plugins: VolumePluginManager;
}

/** The node context and the plugin registry a kubelet's volume manager runs with. */
export function wireNodeVolumes(options: NodeVolumeWiringOptions): NodeVolumeWiring {
  const logger = volumeLogger(options.logger);
  const mounter = new Mounter(options.host, { logger, safeNotMountedProbeParentDir: options.rootDir });
  const node: NodeVolumeContext = {
    host: options.host,
    nodeName: options.nodeName,
    rootDir: options.rootDir,
    mounter,
    ...(options.allocatable === undefined ? {} : { allocatable: options.allocatable }),
  };
  const volumeHost: VolumeHost = {
    clock: options.clock,
    rng: options.rng,
    logger,
    api: new ClientVolumeApi(options.client),
    node,
  };
  const plugins = new VolumePluginManager();
  const inTree = inTreeVolumePlugins(options.csi === undefined ? {} : { csi: options.csi });
  plugins.register([...inTree, ...(options.extraPlugins ?? [])], volumeHost);
  return { node, plugins };
}
