/**
 * What a local PV points at, and where the kubelet mounts it: a directory is used in place; a block
 * device is formatted if empty and mounted once per node at
 * `plugins/kubernetes.io/local-volume/mounts/<pv name>`.
 */
import { posix } from "node:path";
import type { LocalVolumeSource } from "kubernetes-types/core/v1.js";
import type { Host } from "../../../host/host.ts";
import { escapeQualifiedName, pluginDir, pluginGlobalMapPath } from "../../paths.ts";
import type { VolumeSpec } from "../../spec.ts";

export const localPluginName = "kubernetes.io/local-volume";
const globalMountsDirName = "mounts";

export function localSource(spec: VolumeSpec): LocalVolumeSource | undefined {
  return spec.persistentVolume?.spec?.local;
}

export function requireLocalPath(spec: VolumeSpec): string {
  const path = localSource(spec)?.path;
  if (!path) throw new Error("local volume source is nil or local path is not set");
  return path;
}

/** `plugins/kubernetes.io/local-volume/mounts`: where block-device local PVs are mounted. */
export function localBlockDeviceMountsDir(rootDir: string): string {
  return posix.join(pluginDir(rootDir, localPluginName), globalMountsDirName);
}

type LocalPathKind = "directory" | "blockDevice";

/** Directory or block device; anything else is refused with Kubernetes' message. */
export async function localPathKind(host: Host, path: string): Promise<LocalPathKind> {
  const type = (await host.stat(path)).type;
  if (type === "directory" || type === "blockDevice") return type;
  throw new Error("only directory and block device are supported");
}

/** The directory pods bind-mount: the PV's directory itself, or the block device's global mount. */
export async function localGlobalPath(host: Host, rootDir: string, spec: VolumeSpec): Promise<string> {
  const path = requireLocalPath(spec);
  if ((await localPathKind(host, path)) === "directory") return path;
  return posix.join(localBlockDeviceMountsDir(rootDir), spec.name());
}

/**
 * `plugins/kubernetes.io~local-volume/volumeDevices/<pv>`: the block global map path. Kubernetes
 * escapes the plugin name here (unlike rbd's), and kvol keeps the same path.
 */
export function localGlobalMapPath(rootDir: string, specName: string): string {
  return pluginGlobalMapPath(rootDir, escapeQualifiedName(localPluginName), specName);
}
