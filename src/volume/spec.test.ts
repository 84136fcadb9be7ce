import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { VolumeSpec } from "./spec.ts";

describe("VolumeSpec", () => {
  it("names an inline volume by the pod's volume name", () => {
    const spec = VolumeSpec.fromVolume({ name: "cache", emptyDir: {} });
    assert.equal(spec.name(), "cache");
    assert.equal(spec.volumeMode(), "Filesystem");
    assert.deepEqual(spec.accessModes(), []);
  });

  it("names a claim-backed volume by the PV name and reads its mode and access modes", () => {
    const spec = VolumeSpec.fromPersistentVolume(
      {
        metadata: { name: "xx-pv" },
        spec: { accessModes: ["ReadWriteMany"], volumeMode: "Block", mountOptions: ["nfsvers=4.1"] },
      },
      true,
    );
    assert.equal(spec.name(), "xx-pv");
    assert.equal(spec.isBlock(), true);
    assert.equal(spec.readOnly, true);
    assert.deepEqual(spec.accessModes(), ["ReadWriteMany"]);
    assert.deepEqual(spec.mountOptions(), ["nfsvers=4.1"]);
    assert.equal(spec.withReadOnly(false).readOnly, false);
  });

  it("recognises a ReadOnlyMany-only PV", () => {
    const rox = VolumeSpec.fromPersistentVolume({ metadata: { name: "a" }, spec: { accessModes: ["ReadOnlyMany"] } });
    const rwx = VolumeSpec.fromPersistentVolume({
      metadata: { name: "b" },
      spec: { accessModes: ["ReadWriteMany", "ReadOnlyMany"] },
    });
    assert.equal(rox.isReadOnlyManyOnly(), true);
    assert.equal(rwx.isReadOnlyManyOnly(), false);
  });

  it("refuses specs without a name", () => {
    assert.throws(() => VolumeSpec.fromVolume({ name: "" }), /volume.name is required/);
    assert.throws(() => VolumeSpec.fromPersistentVolume({ spec: {} }), /persistentVolume.metadata.name is required/);
  });
});
