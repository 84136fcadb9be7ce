import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CsiNodeClient } from "./csi-driver-registry.ts";
import { CsiDriverNotRegistered, CsiDriverRegistry } from "./csi-driver-registry.ts";

function driver(name: string, endpoint: string, closed: string[]) {
  const client = { close: () => closed.push(endpoint) } as unknown as CsiNodeClient;
  return {
    name,
    endpoint,
    highestSupportedVersion: { major: 1, minor: 0, patch: 0 },
    client,
    nodeId: "n",
    capabilities: undefined,
  };
}

describe("the node's CSI driver registry", () => {
  it("names an unknown driver with Kubernetes' text", () => {
    const registry = new CsiDriverRegistry();
    assert.throws(
      () => registry.require("ebs.csi.aws.com"),
      (err: unknown) => {
        assert.ok(err instanceof CsiDriverNotRegistered);
        assert.equal(err.message, "driver name ebs.csi.aws.com not found in the list of registered CSI drivers");
        return true;
      },
    );
    assert.throws(() => registry.require(""), { message: "driver name is empty" });
  });

  it("closes the connection of a replaced or removed driver, and unregisters only the current endpoint", () => {
    const closed: string[] = [];
    const registry = new CsiDriverRegistry();
    registry.register(driver("d", "/old.sock", closed));
    registry.register(driver("d", "/new.sock", closed));
    assert.deepEqual(closed, ["/old.sock"]);
    assert.equal(registry.unregister("d", "/old.sock"), false, "a stale endpoint does not remove the new registration");
    assert.equal(registry.require("d").endpoint, "/new.sock");
    assert.equal(registry.unregister("d", "/new.sock"), true);
    assert.deepEqual(closed, ["/old.sock", "/new.sock"]);
    assert.deepEqual(registry.names(), []);
  });
});
