import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { VolumePluginManager } from "../plugin-manager.ts";
import { VolumeSpec } from "../spec.ts";
import { simNode } from "../testing/sim-node.ts";
import { inTreeVolumePlugins } from "./in-tree-plugins.ts";

describe("the in-tree plugin set", () => {
  it("registers without conflicts and routes each source to exactly one plugin", async () => {
    const fixture = await simNode();
    const manager = new VolumePluginManager();
    manager.register(inTreeVolumePlugins({ simDiskProvider: fixture.world.disks }), fixture.volumeHost);
    const cases: Array<[VolumeSpec, string]> = [
      [VolumeSpec.fromVolume({ name: "a", emptyDir: {} }), "kubernetes.io/empty-dir"],
      [VolumeSpec.fromVolume({ name: "a", hostPath: { path: "/x" } }), "kubernetes.io/host-path"],
      [VolumeSpec.fromVolume({ name: "a", secret: { secretName: "s" } }), "kubernetes.io/secret"],
      [VolumeSpec.fromVolume({ name: "a", configMap: { name: "c" } }), "kubernetes.io/configmap"],
      [VolumeSpec.fromVolume({ name: "a", downwardAPI: {} }), "kubernetes.io/downward-api"],
      [VolumeSpec.fromVolume({ name: "a", projected: { sources: [] } }), "kubernetes.io/projected"],
      [
        VolumeSpec.fromPersistentVolume({ metadata: { name: "p" }, spec: { local: { path: "/mnt" } } }),
        "kubernetes.io/local-volume",
      ],
      [VolumeSpec.fromVolume({ name: "a", nfs: { server: "s", path: "/" } }), "kubernetes.io/nfs"],
      [VolumeSpec.fromVolume({ name: "a", rbd: { monitors: [], image: "i" } }), "kubernetes.io/rbd"],
      [
        VolumeSpec.fromPersistentVolume({
          metadata: { name: "p" },
          spec: { flexVolume: { driver: "kvol.io/sim-disk", options: { diskId: "d" } } },
        }),
        "kvol.io/sim-disk",
      ],
    ];
    for (const [spec, pluginName] of cases) assert.equal(manager.findPluginBySpec(spec).name, pluginName);
    const attachable = cases
      .filter(([spec]) => manager.findAttachablePluginBySpec(spec) !== undefined)
      .map(([, name]) => name);
    assert.deepEqual(attachable, ["kubernetes.io/rbd", "kvol.io/sim-disk"]);
    const deviceMountable = cases
      .filter(([spec]) => manager.findDeviceMountablePluginBySpec(spec) !== undefined)
      .map(([, name]) => name);
    assert.deepEqual(deviceMountable, ["kubernetes.io/local-volume", "kubernetes.io/rbd", "kvol.io/sim-disk"]);
  });
});
