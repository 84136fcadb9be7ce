import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { attacherFinalizerFor, sanitizeDriverName } from "./finalizers.ts";
import { capabilitiesForClaim, capabilityForVolume, csiAccessModeFor } from "./volume-capability.ts";

describe("access modes in CSI terms", () => {
  it("maps Kubernetes access modes, finer with SINGLE_NODE_MULTI_WRITER", () => {
    assert.equal(csiAccessModeFor(["ReadWriteOnce"], false), "SINGLE_NODE_WRITER");
    assert.equal(csiAccessModeFor(["ReadWriteOnce"], true), "SINGLE_NODE_MULTI_WRITER");
    assert.equal(csiAccessModeFor(["ReadWriteOncePod"], true), "SINGLE_NODE_SINGLE_WRITER");
    assert.equal(csiAccessModeFor(["ReadOnlyMany"], false), "MULTI_NODE_READER_ONLY");
    assert.equal(csiAccessModeFor(["ReadWriteOnce", "ReadWriteMany"], false), "MULTI_NODE_MULTI_WRITER");
    assert.throws(
      () => csiAccessModeFor(["ReadOnlyMany", "ReadWriteOnce"], false),
      /CSI does not support ReadOnlyMany and ReadWriteOnce/,
    );
    assert.throws(() => csiAccessModeFor([], false), /unsupported AccessMode combination/);
  });

  it("asks CreateVolume for one capability per access mode, block for Block claims", () => {
    const spec = { accessModes: ["ReadWriteOnce", "ReadOnlyMany"], volumeMode: "Block" };
    assert.deepEqual(capabilitiesForClaim(spec, "ext4", ["noatime"], false), [
      { block: {}, accessMode: { mode: "SINGLE_NODE_WRITER" } },
      { block: {}, accessMode: { mode: "MULTI_NODE_READER_ONLY" } },
    ]);
  });

  it("publishes a filesystem volume with its fsType and mount options", () => {
    const spec = {
      accessModes: ["ReadWriteMany"],
      mountOptions: ["nfsvers=4"],
      csi: { driver: "d", volumeHandle: "v", fsType: "xfs" },
    };
    assert.deepEqual(capabilityForVolume(spec, false), {
      mount: { fsType: "xfs", mountFlags: ["nfsvers=4"], volumeMountGroup: "" },
      accessMode: { mode: "MULTI_NODE_MULTI_WRITER" },
    });
  });
});

describe("attacher finalizer", () => {
  it("sanitizes the driver name as external-attacher does", () => {
    assert.equal(attacherFinalizerFor("hostpath.csi.kvol.io"), "external-attacher/hostpath-csi-kvol-io");
    assert.equal(sanitizeDriverName("csi.example.com/"), "csi-example-com-X");
  });
});
