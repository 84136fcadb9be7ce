import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { maxUnixSocketPathBytes, socketPathOf, unixEndpoint } from "./endpoint.ts";

describe("CSI endpoints", () => {
  test("unix:///abs/path gives the socket path, and back", () => {
    assert.equal(socketPathOf("unix:///csi/csi.sock"), "/csi/csi.sock");
    assert.equal(unixEndpoint("/var/lib/kubelet/plugins/x/csi.sock"), "unix:///var/lib/kubelet/plugins/x/csi.sock");
  });

  test("other schemes and relative paths are refused with the expected form", () => {
    assert.throws(() => socketPathOf("tcp://127.0.0.1:10000"), /must start with "unix:\/\/"/);
    assert.throws(() => socketPathOf("unix://csi.sock"), /must name an absolute path: unix:\/\/\/path\/to\/csi\.sock/);
    assert.throws(() => unixEndpoint("relative/csi.sock"), /absolute path/);
  });

  test("a path too long for a Unix socket address is refused before binding", () => {
    const longPath = `/${"d".repeat(maxUnixSocketPathBytes)}/csi.sock`;
    assert.throws(() => socketPathOf(`unix://${longPath}`), /more than the 107 a Unix socket address holds/);
    assert.doesNotThrow(() => socketPathOf(`unix:///${"d".repeat(maxUnixSocketPathBytes - 1)}`));
  });
});
