/** The kubelet's NodeExpandVolume request, as csi_client builds it, and the EXPAND_VOLUME check before it. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { settle } from "../../testing/sim-node.ts";
import { CsiNodeCalls } from "./csi-node-calls.ts";
import { csiPluginFixture } from "./testing/csi-plugin-fixture.ts";
import { testCsiDriverName } from "./testing/test-csi-node-driver.ts";

const expandArgs = {
  volumeHandle: "vol-1",
  volumePath: "/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~csi/pv-1/mount",
  stagingPath: "/var/lib/kubelet/plugins/kubernetes.io/csi/test.csi.kvol.io/abc/globalmount",
  requiredBytes: 2147483648n,
  fsType: "ext4",
  accessMode: "ReadWriteOnce" as const,
  mountOptions: [],
  secrets: {},
};

describe("CSI NodeExpandVolume from the kubelet", () => {
  it("sends the publish path, the staging path and the PV's size as required_bytes", async () => {
    const fixture = await csiPluginFixture({ driver: { capabilities: ["STAGE_UNSTAGE_VOLUME", "EXPAND_VOLUME"] } });
    const calls = new CsiNodeCalls(fixture.registry.require(testCsiDriverName));
    assert.equal(await settle(fixture.clock, calls.supportsNodeExpand()), true);
    await settle(fixture.clock, calls.expandVolume(expandArgs));
    assert.deepEqual(fixture.driver.expandRequests, [
      {
        volumeId: "vol-1",
        volumePath: "/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~csi/pv-1/mount",
        stagingTargetPath: "/var/lib/kubelet/plugins/kubernetes.io/csi/test.csi.kvol.io/abc/globalmount",
        capacityRange: { requiredBytes: 2147483648, limitBytes: 0 },
        volumeCapability: {
          mount: { fsType: "ext4", mountFlags: [], volumeMountGroup: "" },
          accessMode: { mode: "SINGLE_NODE_WRITER" },
        },
        secrets: {},
      },
    ]);
  });

  it("a driver without the EXPAND_VOLUME node capability is not asked", async () => {
    const fixture = await csiPluginFixture({ driver: { capabilities: ["STAGE_UNSTAGE_VOLUME"] } });
    const calls = new CsiNodeCalls(fixture.registry.require(testCsiDriverName));
    assert.equal(await settle(fixture.clock, calls.supportsNodeExpand()), false);
  });
});
