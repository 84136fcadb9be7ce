import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { imageDirName, imageRepository, normalizeImageName } from "./image-names.ts";

describe("image names", () => {
  it("reduces the ways of naming one image to one key", () => {
    assert.equal(normalizeImageName("busybox"), "busybox:latest");
    assert.equal(normalizeImageName("docker.io/library/busybox"), "busybox:latest");
    assert.equal(normalizeImageName("library/busybox:latest"), "busybox:latest");
    assert.equal(normalizeImageName("nginx:1.25"), "nginx:1.25");
    assert.equal(normalizeImageName("weaveworksdemos/user-db:0.3.0"), "weaveworksdemos/user-db:0.3.0");
    assert.equal(normalizeImageName("registry.local:5000/team/app"), "registry.local:5000/team/app:latest");
  });

  it("gives the repository and a one-segment directory name", () => {
    assert.equal(imageRepository("nginx:1.25"), "nginx");
    assert.equal(imageRepository("registry.local:5000/team/app:latest"), "registry.local:5000/team/app");
    assert.equal(imageDirName("weaveworksdemos/user-db:0.3.0"), "weaveworksdemos%2Fuser-db%3A0.3.0");
  });

  it("refuses an empty name", () => {
    assert.throws(() => normalizeImageName(" "), /image name is empty/);
  });
});
