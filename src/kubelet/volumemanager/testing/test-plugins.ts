/** A plugin manager with the in-tree plugins on a simulated node, for the cache tests. */
import { VolumePluginManager } from "../../../volume/plugin-manager.ts";
import { inTreeVolumePlugins } from "../../../volume/plugins/in-tree-plugins.ts";
import { VolumeSpec } from "../../../volume/spec.ts";
import { simNode } from "../../../volume/testing/sim-node.ts";

export async function inTreePluginManager(): Promise<VolumePluginManager> {
  const fixture = await simNode();
  const plugins = new VolumePluginManager();
  plugins.register(inTreeVolumePlugins(), fixture.volumeHost);
  return plugins;
}

export function simDiskSpec(diskId: string): VolumeSpec {
  return VolumeSpec.fromPersistentVolume({
    metadata: { name: `pv-${diskId}` },
    spec: { accessModes: ["ReadWriteOnce"], flexVolume: { driver: "kvol.io/sim-disk", options: { diskId } } },
  });
}

export function secretSpec(name: string): VolumeSpec {
  return VolumeSpec.fromVolume({ name, secret: { secretName: name } });
}

export function emptyDirSpec(name: string): VolumeSpec {
  return VolumeSpec.fromVolume({ name, emptyDir: {} });
}

export function pod(uid: string) {
  return { metadata: { name: `pod-${uid}`, namespace: "default", uid }, spec: { containers: [] } };
}
