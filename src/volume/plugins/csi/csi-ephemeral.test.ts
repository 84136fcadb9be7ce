import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ephemeralVolumeHandle } from "./csi-ephemeral.ts";

describe("inline CSI volumes", () => {
  it("names the volume csi-<sha256(pod uid + volume name)> as the kubelet does", () => {
    // sha256("uid-1data") computed independently: printf uid-1data | sha256sum
    assert.equal(
      ephemeralVolumeHandle("uid-1", "data"),
      "csi-d6e418cffb6079f9b02d83af7dffbf3511ed5a26b3f106f1f3ca764ed6505c9c",
    );
  });
});
