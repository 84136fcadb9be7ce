import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bundledDriverStateDir } from "./bundled-driver-state-dir.ts";

describe("bundledDriverStateDir", () => {
  it("keeps the attachable disks in DATA/disks", () => {
    assert.equal(bundledDriverStateDir("/data", "disk.csi.kvol.io"), "/data/disks");
  });

  it("keeps the other drivers' volumes in DATA/csi/DRIVER", () => {
    assert.equal(bundledDriverStateDir("/data", "fuse.csi.kvol.io"), "/data/csi/fuse.csi.kvol.io");
    assert.equal(bundledDriverStateDir("/data", "hostpath.csi.kvol.io"), "/data/csi/hostpath.csi.kvol.io");
  });
});
