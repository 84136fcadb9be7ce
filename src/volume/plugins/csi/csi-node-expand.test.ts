/** The kubelet's NodeExpandVolume request, as csi_client builds it, and the EXPAND_VOLUME check before it. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolume } from "../../../api/objects.ts";
import { CsiError } from "../../../csi/grpc/errors.ts";
import { FailedPreconditionError, OperationNotSupportedError } from "../../errors.ts";
import { VolumeSpec } from "../../spec.ts";
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

  function expandablePv(secretRef?: { name: string; namespace: string }): VolumeSpec {
    const pv: PersistentVolume = {
      metadata: { name: "pv-1" },
      spec: {
        capacity: { storage: "2Gi" },
        accessModes: ["ReadWriteOnce"],
        csi: {
          driver: testCsiDriverName,
          volumeHandle: "vol-1",
          fsType: "ext4",
          ...(secretRef === undefined ? {} : { nodeExpandSecretRef: secretRef }),
        },
      },
    };
    return VolumeSpec.fromPersistentVolume(pv);
  }

  const resize = (volumeSpec: VolumeSpec) => ({
    volumeSpec,
    devicePath: "",
    deviceMountPath: expandArgs.volumePath,
    deviceStagePath: expandArgs.stagingPath,
    oldSizeBytes: 1073741824n,
    newSizeBytes: 2147483648n,
  });

  it("passes the PV's nodeExpandSecretRef as the request's secrets", async () => {
    const fixture = await csiPluginFixture({ driver: { capabilities: ["STAGE_UNSTAGE_VOLUME", "EXPAND_VOLUME"] } });
    fixture.api.putSecret({
      metadata: { name: "expand-creds", namespace: "storage" },
      data: { password: Buffer.from("s3cret").toString("base64") },
    });
    const spec = expandablePv({ name: "expand-creds", namespace: "storage" });
    assert.equal(await settle(fixture.clock, fixture.plugin.nodeExpand(resize(spec))), true);
    assert.deepEqual(fixture.driver.expandRequests[0]?.secrets, { password: "s3cret" });
    assert.equal(fixture.driver.expandRequests[0]?.volumePath, expandArgs.volumePath);
    assert.equal(fixture.driver.expandRequests[0]?.stagingTargetPath, expandArgs.stagingPath);
  });

  it("a missing nodeExpandSecretRef secret fails with the reference named, before any NodeExpandVolume", async () => {
    const fixture = await csiPluginFixture({ driver: { capabilities: ["EXPAND_VOLUME"] } });
    const spec = expandablePv({ name: "gone", namespace: "storage" });
    await assert.rejects(settle(fixture.clock, fixture.plugin.nodeExpand(resize(spec))), {
      message: /^expander\.NodeExpand failed to get NodeExpandSecretRef storage\/gone: /,
    });
    assert.deepEqual(fixture.driver.expandRequests, []);
  });

  it("without EXPAND_VOLUME the kubelet is told the driver cannot; FailedPrecondition keeps its class", async () => {
    const without = await csiPluginFixture({ driver: { capabilities: ["STAGE_UNSTAGE_VOLUME"] } });
    await assert.rejects(settle(without.clock, without.plugin.nodeExpand(resize(expandablePv()))), (err) => {
      assert.ok(err instanceof OperationNotSupportedError);
      assert.equal(err.message, `NodeExpand is not supported by the CSI driver ${testCsiDriverName}`);
      return true;
    });
    const offline = await csiPluginFixture({ driver: { capabilities: ["EXPAND_VOLUME"] } });
    offline.driver.failNext("NodeExpandVolume", new CsiError("FailedPrecondition", "offline only"));
    await assert.rejects(settle(offline.clock, offline.plugin.nodeExpand(resize(expandablePv()))), (err) => {
      assert.ok(err instanceof FailedPreconditionError);
      assert.equal(
        err.message,
        "Expander.NodeExpand failed to expand the volume : rpc error: code = FailedPrecondition desc = offline only",
      );
      return true;
    });
  });
});
