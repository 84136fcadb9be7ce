/**
 * The plugins a kvol kubelet or attach/detach controller registers (Kubernetes' ProbeVolumePlugins).
 * The kubelet's CSI plugin is in the list when `csi` is given (the node's driver registry); the
 * attach/detach controller leaves it out and adds its own controller-side CSI plugin.
 */
import type { VolumePlugin } from "../plugin.ts";
import { ConfigMapPlugin } from "./configmap/config-map-plugin.ts";
import { CsiPlugin, type CsiPluginOptions } from "./csi/csi-plugin.ts";
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

interface InTreePluginOptions {
  nfs?: NfsPluginOptions;
  /** The simulated disk provider, where attach and detach run (the attach/detach controller). */
  simDiskProvider?: SimDiskProvider;
  /** The kubelet's CSI plugin (`kubernetes.io/csi`): registered drivers and API reads. */
  csi?: CsiPluginOptions;
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
    ...(options.csi === undefined ? [] : [new CsiPlugin(options.csi)]),
  ];
}
