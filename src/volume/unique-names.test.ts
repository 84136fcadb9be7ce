import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { VolumePlugin } from "./plugin.ts";
import { VolumeSpec } from "./spec.ts";
import { splitUniqueName, uniqueVolumeNameFromSpec, uniqueVolumeNameFromSpecWithPod } from "./unique-names.ts";

function pluginNamed(name: string, getVolumeName: (spec: VolumeSpec) => string): VolumePlugin {
  return {
    name,
    init: () => undefined,
    canSupport: () => true,
    requiresRemount: () => false,
    supportsMountOption: () => false,
    getVolumeName,
    newMounter: () => {
      throw new Error("not used");
    },
    newUnmounter: () => {
      throw new Error("not used");
    },
    constructVolumeSpec: () => Promise.reject(new Error("not used")),
  };
}

describe("unique volume names", () => {
  it("names a CSI volume by driver and handle, shared by every pod", () => {
    const csi = pluginNamed("kubernetes.io/csi", () => "hostpath.csi.k8s.io^c8ebeba1-xx");
    const spec = VolumeSpec.fromPersistentVolume({ metadata: { name: "pvc-1" }, spec: {} });
    assert.equal(uniqueVolumeNameFromSpec(csi, spec), "kubernetes.io/csi/hostpath.csi.k8s.io^c8ebeba1-xx");
  });

  it("names a per-pod volume by pod UID and spec name", () => {
    const secret = pluginNamed("kubernetes.io/secret", (spec) => spec.name());
    const spec = VolumeSpec.fromVolume({ name: "kube-api-access-x7k2p", secret: { secretName: "s" } });
    assert.equal(
      uniqueVolumeNameFromSpecWithPod("uid-1", secret, spec),
      "kubernetes.io/secret/uid-1-kube-api-access-x7k2p",
    );
  });

  it("refuses an empty volume name with the spec name in the message", () => {
    const broken = pluginNamed("kubernetes.io/rbd", () => "");
    const spec = VolumeSpec.fromPersistentVolume({ metadata: { name: "pv-a" }, spec: {} });
    assert.throws(
      () => uniqueVolumeNameFromSpec(broken, spec),
      /failed to GetVolumeName from volumePlugin for volumeSpec "pv-a"/,
    );
  });

  it("splits namespace/plugin/volume, keeping slashes inside the volume name", () => {
    assert.deepEqual(splitUniqueName("kubernetes.io/csi/driver^vol/with/slash"), {
      pluginName: "kubernetes.io/csi",
      volumeName: "driver^vol/with/slash",
    });
    assert.throws(() => splitUniqueName("kubernetes.io/nfs"), /cannot split volume unique name kubernetes.io\/nfs/);
  });
});
