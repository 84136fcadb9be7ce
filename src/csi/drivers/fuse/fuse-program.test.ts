import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newTestWorld } from "../../../host/sim/testing/sim-test-world.ts";
import { createFuseDriver } from "./fuse-driver.ts";
import { directoryFuseProgram, s3fsProgram } from "./fuse-program.ts";

describe("fuse.csi.kvol.io programs", () => {
  it("a directory program serves <stateDir>/<volumeId> in the foreground, named by that directory", () => {
    const bindfs = directoryFuseProgram("bindfs", "/var/lib/kvol/csi-fuse");
    assert.deepEqual(bindfs.args("fuse-1", "/mnt/x"), ["-f", "/var/lib/kvol/csi-fuse/fuse-1", "/mnt/x"]);
    assert.equal(bindfs.mountSource("fuse-1"), "/var/lib/kvol/csi-fuse/fuse-1");
    assert.equal(bindfs.localDataPath("fuse-1"), "/var/lib/kvol/csi-fuse/fuse-1");
  });

  it("s3fs serves <bucket>:/<volumeId> path-style, with the credentials file, named by fsname", () => {
    const s3fs = s3fsProgram({ url: "http://127.0.0.1:9000", bucket: "volumes", passwdFile: "/etc/passwd-s3fs" });
    assert.deepEqual(s3fs.args("fuse-1", "/mnt/x"), [
      "volumes:/fuse-1",
      "/mnt/x",
      "-f",
      "-o",
      "url=http://127.0.0.1:9000,use_path_request_style,passwd_file=/etc/passwd-s3fs,fsname=volumes:/fuse-1",
    ]);
    assert.equal(s3fs.mountSource("fuse-1"), "volumes:/fuse-1");
    assert.equal(s3fs.localDataPath("fuse-1"), undefined, "the data is in the bucket, not on the node");
  });

  it("s3 options with another program are refused, naming both", () => {
    const { world, clock } = newTestWorld();
    const host = world.addNode("node-a");
    const s3 = { url: "http://127.0.0.1:9000", bucket: "volumes", passwdFile: "/etc/passwd-s3fs" };
    assert.throws(() => createFuseDriver({ host, clock, nodeId: "node-a", fuseProgram: "bindfs", s3 }), {
      message: "fuse.csi.kvol.io: s3 options need the s3fs program, not bindfs",
    });
  });
});
