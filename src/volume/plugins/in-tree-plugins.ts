/**
 * The plugins a kvol kubelet or attach/detach controller registers (Kubernetes' ProbeVolumePlugins).
 * The CSI plugin joins this list when it lands in plugins/csi/.
 */
import type { VolumePlugin } from "../plugin.ts";
import { ConfigMapPlugin } from "./configmap/config-map-plugin.ts";
import { DownwardApiPlugin } from "./downwardapi/downward-api-plugin.ts";
import { EmptyDirPlugin } from "./emptydir/empty-dir-plugin.ts";
import { HostPathPlugin } from "./hostpath/host-path-plugin.ts";
import { LocalPlugin } from "./local/local-plugin.ts";
import { NfsPlugin, type NfsPluginOptions } from "./nfs/nfs-plugin.ts";
import { ProjectedPlugin } from "./projected/projected-plugin.ts";
import { RbdPlugin } from "./rbd/rbd-plugin.ts";
import { SecretPlugin } from "./secret/secret-plugin.ts";
import type { SimDiskProvider } from "./simdisk/sim-disk-attacher.ts";
import { SimDiskPlugin } from "./simdisk/sim-disk-plugin.ts";

export interface InTreePluginOptions {
  nfs?: NfsPluginOptions;
  /** The simulated disk provider, where attach and detach run (the attach/detach controller). */
  simDiskProvider?: SimDiskProvider;
}

/** A fresh instance of every in-tree plugin, ready for VolumePluginManager.register. */
export function inTreeVolumePlugins(options: InTreePluginOptions = {}): VolumePlugin[] {
  return [
    new EmptyDirPlugin(),
    new HostPathPlugin(),
    new SecretPlugin(),
    new ConfigMapPlugin(),
    new DownwardApiPlugin(),
    new ProjectedPlugin(),
    new LocalPlugin(),
    new NfsPlugin(options.nfs),
    new RbdPlugin(),
    new SimDiskPlugin(options.simDiskProvider === undefined ? {} : { provider: options.simDiskProvider }),
  ];
}
