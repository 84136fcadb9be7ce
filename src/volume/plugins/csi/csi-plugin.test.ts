/**
 * The kubelet CSI plugin against a test driver on a simulated node, checked the way Kubernetes'
 * CSI mock tests check it: which RPCs the kubelet sends, in which order, with which paths, and
 * what it leaves on disk.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolume, Pod } from "kubernetes-types/core/v1.js";
import type { CsiCallRecord } from "../../../csi/grpc/call-log.ts";
import { CsiError } from "../../../csi/grpc/errors.ts";
import { TransientOperationFailure, UncertainProgressError } from "../../errors.ts";
import { VolumePluginManager } from "../../plugin-manager.ts";
import { VolumeSpec } from "../../spec.ts";
import { settle } from "../../testing/sim-node.ts";
import { volumeAttachmentName } from "./csi-attacher.ts";
import { type CsiPluginFixture, callSequence, csiPluginFixture } from "./testing/csi-plugin-fixture.ts";
import { testCsiDriverName } from "./testing/test-csi-node-driver.ts";

const driverName = testCsiDriverName;
const handle = "vol-1";
const uid = "pod-uid-1";
const pod: Pod = {
  metadata: { name: "web-0", namespace: "default", uid },
  spec: { containers: [], serviceAccountName: "web" },
};
const root = "/var/lib/kubelet";
/** sha256("vol-1") */
const handleSha = "d2e8363faaac7ae76def3b14091d8eb5755f6b92e9531627aeec833a8731cc49";
const podVolumeDir = `${root}/pods/${uid}/volumes/kubernetes.io~csi/pvc-1`;
const targetPath = `${podVolumeDir}/mount`;
const attachmentName = volumeAttachmentName(handle, driverName, "node-1");

function csiPv(extra: Partial<NonNullable<PersistentVolume["spec"]>> = {}): VolumeSpec {
  return VolumeSpec.fromPersistentVolume({
    metadata: { name: "pvc-1" },
    spec: {
      accessModes: ["ReadWriteOnce"],
      csi: { driver: driverName, volumeHandle: handle, fsType: "ext4", volumeAttributes: { tier: "gold" } },
      ...extra,
    },
  });
}

function markAttached(fixture: CsiPluginFixture, metadata: Record<string, string> = { devicePath: "/dev/vdb" }): void {
  fixture.attachments.set(attachmentName, {
    metadata: { name: attachmentName },
    spec: { attacher: driverName, nodeName: "node-1", source: { persistentVolumeName: "pvc-1" } },
    status: { attached: true, attachmentMetadata: metadata },
  });
}

async function text(fixture: CsiPluginFixture, path: string): Promise<string> {
  return new TextDecoder().decode(await fixture.host.readFile(path));
}

async function exists(fixture: CsiPluginFixture, path: string): Promise<boolean> {
  return fixture.host.lstat(path).then(
    () => true,
    () => false,
  );
}

function request<M extends CsiCallRecord["method"]>(calls: readonly CsiCallRecord[], method: M) {
  const call = calls.find((record) => record.method === method);
  assert.ok(call !== undefined, `no ${method} call`);
  return call.request as Extract<CsiCallRecord, { method: M }>["request"];
}

async function mountFully(fixture: CsiPluginFixture, spec: VolumeSpec): Promise<string> {
  const attacher = fixture.plugin.newAttacher();
  const devicePath = await settle(fixture.clock, attacher.waitForAttach(spec, "", pod, 600_000));
  const deviceMountPath = await attacher.getDeviceMountPath(spec);
  await settle(fixture.clock, fixture.plugin.newDeviceMounter().mountDevice(spec, devicePath, deviceMountPath, {}));
  await settle(fixture.clock, fixture.plugin.newMounter(spec, pod).setUp({}));
  return deviceMountPath;
}

describe("kubernetes.io/csi: filesystem volumes", () => {
  it("stages to globalmount and publishes to the pod's mount dir, writing vol_data.json beside each", async () => {
    const fixture = await csiPluginFixture();
    markAttached(fixture);
    const spec = csiPv();
    const deviceMountPath = await mountFully(fixture, spec);

    const stagingPath = `${root}/plugins/kubernetes.io/csi/${driverName}/${handleSha}/globalmount`;
    assert.equal(deviceMountPath, stagingPath);
    assert.deepEqual(
      fixture.calls.map((call) => call.method),
      [
        "NodeGetCapabilities",
        "NodeGetCapabilities",
        "NodeStageVolume",
        "NodeGetCapabilities",
        "NodeGetCapabilities",
        "NodeGetCapabilities",
        "NodePublishVolume",
      ],
      "the kubelet asks for capabilities before every step, never calls Identity",
    );
    assert.deepEqual(request(fixture.calls, "NodeStageVolume"), {
      volumeId: handle,
      publishContext: { devicePath: "/dev/vdb" },
      stagingTargetPath: stagingPath,
      volumeCapability: {
        mount: { fsType: "ext4", mountFlags: [], volumeMountGroup: "" },
        accessMode: { mode: "SINGLE_NODE_WRITER" },
      },
      secrets: {},
      volumeContext: { tier: "gold" },
    });
    const publish = request(fixture.calls, "NodePublishVolume");
    assert.equal(publish.targetPath, targetPath);
    assert.equal(publish.stagingTargetPath, stagingPath);
    assert.deepEqual(publish.publishContext, { devicePath: "/dev/vdb" });
    assert.deepEqual(publish.volumeContext, { tier: "gold" }, "no pod information without podInfoOnMount");
    assert.equal(publish.readonly, false);

    assert.equal(
      await text(fixture, `${root}/plugins/kubernetes.io/csi/${driverName}/${handleSha}/vol_data.json`),
      `{"driverName":"${driverName}","volumeHandle":"${handle}"}\n`,
    );
    assert.equal(
      await text(fixture, `${podVolumeDir}/vol_data.json`),
      `{"attachmentID":"${attachmentName}","driverName":"${driverName}","nodeName":"node-1",` +
        `"specVolID":"pvc-1","volumeHandle":"${handle}","volumeLifecycleMode":"Persistent"}\n`,
    );
    assert.equal((await fixture.host.stat(podVolumeDir)).mode, 0o750);
    assert.equal((await fixture.host.stat(`${root}/plugins/kubernetes.io/csi/${driverName}/${handleSha}`)).mode, 0o750);

    await fixture.host.writeFile(`${targetPath}/row.txt`, "42");
    assert.equal(await text(fixture, `${stagingPath}/row.txt`), "42", "the pod writes to the staged volume");
  });

  it("tears down with NodeUnpublish then NodeUnstage, removing the directories and both vol_data.json", async () => {
    const fixture = await csiPluginFixture();
    markAttached(fixture);
    const spec = csiPv();
    const deviceMountPath = await mountFully(fixture, spec);
    fixture.calls.length = 0;

    await settle(fixture.clock, fixture.plugin.newUnmounter("pvc-1", uid).tearDown());
    await settle(fixture.clock, fixture.plugin.newDeviceUnmounter().unmountDevice(deviceMountPath));

    assert.deepEqual(callSequence(fixture.calls), ["NodeUnpublishVolume", "NodeUnstageVolume"]);
    assert.deepEqual(request(fixture.calls, "NodeUnpublishVolume"), { volumeId: handle, targetPath });
    assert.deepEqual(request(fixture.calls, "NodeUnstageVolume"), {
      volumeId: handle,
      stagingTargetPath: deviceMountPath,
    });
    assert.equal(await exists(fixture, podVolumeDir), false);
    assert.equal(await exists(fixture, `${root}/plugins/kubernetes.io/csi/${driverName}/${handleSha}`), false);
    assert.deepEqual(await fixture.host.readdir(`${root}/pods/${uid}/volumes/kubernetes.io~csi`), []);

    await settle(fixture.clock, fixture.plugin.newDeviceUnmounter().unmountDevice(deviceMountPath));
    assert.equal(callSequence(fixture.calls).length, 2, "UnmountDevice again finds no vol_data.json: nothing to do");
  });

  it("adds pod information to the volume context when the CSIDriver asks for it", async () => {
    const fixture = await csiPluginFixture();
    fixture.csiDrivers.set(driverName, { metadata: { name: driverName }, spec: { podInfoOnMount: true } });
    markAttached(fixture);
    await mountFully(fixture, csiPv());
    assert.deepEqual(request(fixture.calls, "NodePublishVolume").volumeContext, {
      tier: "gold",
      "csi.storage.k8s.io/pod.name": "web-0",
      "csi.storage.k8s.io/pod.namespace": "default",
      "csi.storage.k8s.io/pod.uid": uid,
      "csi.storage.k8s.io/serviceAccount.name": "web",
      "csi.storage.k8s.io/ephemeral": "false",
    });
  });

  it("sends the node stage and publish secrets (redacted in the call log) and read-only claims", async () => {
    const fixture = await csiPluginFixture();
    markAttached(fixture);
    fixture.api.putSecret({
      metadata: { name: "creds", namespace: "storage" },
      data: { password: Buffer.from("s3cret").toString("base64") },
    });
    const ref = { name: "creds", namespace: "storage" };
    const base = csiPv();
    const spec = VolumeSpec.fromPersistentVolume(
      {
        ...base.persistentVolume,
        spec: {
          ...base.persistentVolume?.spec,
          csi: { driver: driverName, volumeHandle: handle, nodeStageSecretRef: ref, nodePublishSecretRef: ref },
        },
      } as PersistentVolume,
      true,
    );
    await mountFully(fixture, spec);
    assert.deepEqual(request(fixture.calls, "NodeStageVolume").secrets, { password: "***stripped***" });
    assert.deepEqual(request(fixture.calls, "NodePublishVolume").secrets, { password: "***stripped***" });
    assert.equal(request(fixture.calls, "NodePublishVolume").readonly, true);
  });

  it("stages under plugins/kubernetes.io/csi/pv/<pv>/globalmount with the older layout", async () => {
    const fixture = await csiPluginFixture({ legacyStagingPath: true });
    markAttached(fixture);
    const deviceMountPath = await mountFully(fixture, csiPv());
    assert.equal(deviceMountPath, `${root}/plugins/kubernetes.io/csi/pv/pvc-1/globalmount`);
    assert.equal(request(fixture.calls, "NodePublishVolume").stagingTargetPath, deviceMountPath);
    assert.ok(await exists(fixture, `${root}/plugins/kubernetes.io/csi/pv/pvc-1/vol_data.json`));
  });

  it("publishes without a staging path and still records the globalmount for drivers that do not stage", async () => {
    const fixture = await csiPluginFixture({ driver: { capabilities: [] } });
    markAttached(fixture);
    const deviceMountPath = await mountFully(fixture, csiPv());
    assert.deepEqual(callSequence(fixture.calls), ["NodePublishVolume"]);
    assert.equal(request(fixture.calls, "NodePublishVolume").stagingTargetPath, "");
    assert.ok(await exists(fixture, `${root}/plugins/kubernetes.io/csi/${driverName}/${handleSha}/vol_data.json`));
    fixture.calls.length = 0;
    await settle(fixture.clock, fixture.plugin.newUnmounter("pvc-1", uid).tearDown());
    await settle(fixture.clock, fixture.plugin.newDeviceUnmounter().unmountDevice(deviceMountPath));
    assert.deepEqual(callSequence(fixture.calls), ["NodeUnpublishVolume"], "no NodeUnstage without the capability");
    assert.equal(await exists(fixture, `${root}/plugins/kubernetes.io/csi/${driverName}/${handleSha}`), false);
  });

  it("maps SINGLE_NODE_MULTI_WRITER drivers' ReadWriteOncePod volumes to SINGLE_NODE_SINGLE_WRITER", async () => {
    const fixture = await csiPluginFixture({
      driver: { capabilities: ["STAGE_UNSTAGE_VOLUME", "SINGLE_NODE_MULTI_WRITER"] },
    });
    markAttached(fixture);
    await mountFully(fixture, csiPv({ accessModes: ["ReadWriteOncePod"] }));
    assert.deepEqual(request(fixture.calls, "NodePublishVolume").volumeCapability?.accessMode, {
      mode: "SINGLE_NODE_SINGLE_WRITER",
    });
  });

  it("rebuilds the spec from the pod's vol_data.json after a kubelet restart", async () => {
    const fixture = await csiPluginFixture();
    markAttached(fixture);
    await mountFully(fixture, csiPv());
    const { spec } = await fixture.plugin.constructVolumeSpec("pvc-1", podVolumeDir);
    assert.equal(spec.name(), "pvc-1");
    assert.deepEqual(spec.persistentVolume?.spec?.csi, { driver: driverName, volumeHandle: handle });
    assert.equal(fixture.plugin.getVolumeName(spec), `${driverName}^${handle}`);
    await assert.rejects(
      fixture.plugin.constructVolumeSpec("pvc-2", `${root}/pods/${uid}/volumes/kubernetes.io~csi/pvc-2`),
      /^Error: kubernetes\.io\/csi: plugin\.ConstructVolumeSpec failed loading volume data using \[.*pvc-2\]: kubernetes\.io\/csi: failed to open volume data file \[.*pvc-2\/vol_data\.json\]: open .*: no such file or directory$/,
    );
  });
});

describe("kubernetes.io/csi: attaching", () => {
  it("is attachable unless the CSIDriver says attachRequired: false (a missing CSIDriver means attach)", async () => {
    const fixture = await csiPluginFixture();
    const manager = new VolumePluginManager();
    manager.register([fixture.plugin], fixture.volumeHost);
    const spec = csiPv();
    assert.equal(manager.findAttachablePluginBySpec(spec)?.name, "kubernetes.io/csi");
    fixture.csiDrivers.set(driverName, { metadata: { name: driverName }, spec: { attachRequired: true } });
    assert.equal(manager.findAttachablePluginBySpec(spec)?.name, "kubernetes.io/csi");
    fixture.csiDrivers.set(driverName, { metadata: { name: driverName }, spec: { attachRequired: false } });
    assert.equal(manager.findAttachablePluginBySpec(spec), undefined);
    assert.equal(manager.findDeviceMountablePluginBySpec(spec)?.name, "kubernetes.io/csi", "still staged");
  });

  it("with attachRequired: false reads no VolumeAttachment and sends an empty publish context", async () => {
    const fixture = await csiPluginFixture();
    fixture.csiDrivers.set(driverName, { metadata: { name: driverName }, spec: { attachRequired: false } });
    const spec = csiPv();
    const deviceMountPath = await fixture.plugin.newDeviceMounter().getDeviceMountPath(spec);
    await settle(fixture.clock, fixture.plugin.newDeviceMounter().mountDevice(spec, "", deviceMountPath, {}));
    await settle(fixture.clock, fixture.plugin.newMounter(spec, pod).setUp({}));
    assert.deepEqual(callSequence(fixture.calls), ["NodeStageVolume", "NodePublishVolume"]);
    assert.deepEqual(request(fixture.calls, "NodeStageVolume").publishContext, {});
    assert.deepEqual(request(fixture.calls, "NodePublishVolume").publishContext, {});
  });

  it("WaitForAttach makes one GET and fails until the VolumeAttachment says attached", async () => {
    const fixture = await csiPluginFixture();
    const attacher = fixture.plugin.newAttacher();
    const spec = csiPv();
    await assert.rejects(
      attacher.waitForAttach(spec, "", pod, 600_000),
      new Error(
        `volume ${handle} has GET error for volume attachment ${attachmentName}: ` +
          `volumeattachments.storage.k8s.io "${attachmentName}" not found`,
      ),
    );
    fixture.attachments.set(attachmentName, {
      metadata: { name: attachmentName },
      spec: {} as never,
      status: { attached: false },
    });
    await assert.rejects(
      attacher.waitForAttach(spec, "", pod, 600_000),
      new Error(`volume ${handle} is not attached for volume attachment ${attachmentName}`),
    );
    markAttached(fixture);
    assert.equal(await attacher.waitForAttach(spec, "", pod, 600_000), attachmentName);
  });

  it("never attaches or detaches from the kubelet", async () => {
    const fixture = await csiPluginFixture();
    await assert.rejects(fixture.plugin.newAttacher().attach(csiPv(), "node-1"), {
      message: "attaching volumes from the kubelet is not supported",
    });
    await assert.rejects(fixture.plugin.newDetacher().detach(`${driverName}^${handle}`, "node-1"), {
      message: "detaching volumes from the kubelet is not supported",
    });
  });
});

describe("kubernetes.io/csi: failures", () => {
  it("reports an unregistered driver as a transient failure, in Kubernetes' words", async () => {
    const fixture = await csiPluginFixture({ register: false });
    markAttached(fixture);
    const spec = csiPv();
    const deviceMountPath = await fixture.plugin.newDeviceMounter().getDeviceMountPath(spec);
    const stage = fixture.plugin.newDeviceMounter().mountDevice(spec, attachmentName, deviceMountPath, {});
    await assert.rejects(stage, (err: unknown) => {
      assert.ok(err instanceof TransientOperationFailure);
      assert.equal(
        err.message,
        `kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name ${driverName} not found in the list of registered CSI drivers`,
      );
      return true;
    });
    await assert.rejects(fixture.plugin.newMounter(spec, pod).setUp({}), {
      name: "TransientOperationFailure",
      message: `kubernetes.io/csi: mounter.SetUpAt failed to get CSI client: driver name ${driverName} not found in the list of registered CSI drivers`,
    });
    assert.equal(await exists(fixture, deviceMountPath), false, "nothing was created");
    assert.deepEqual(fixture.calls, []);
  });

  it("a NodeStage that outlives csiTimeout is uncertain: the directory stays and UnmountDevice still unstages", async () => {
    const fixture = await csiPluginFixture();
    markAttached(fixture);
    const spec = csiPv();
    const held = fixture.driver.hangNext("NodeStageVolume");
    const deviceMountPath = await fixture.plugin.newDeviceMounter().getDeviceMountPath(spec);
    const started = fixture.clock.now();
    const stage = settle(fixture.clock, fixture.plugin.newDeviceMounter().mountDevice(spec, "", deviceMountPath, {}));
    await assert.rejects(stage, (err: unknown) => {
      assert.ok(err instanceof UncertainProgressError);
      assert.equal(err.message, "rpc error: code = DeadlineExceeded desc = context deadline exceeded");
      return true;
    });
    assert.equal(fixture.clock.now() - started, 120_000, "the kubelet gives up after csiTimeout (2 min)");
    assert.ok(await exists(fixture, deviceMountPath), "an uncertain stage keeps its directory");
    held.release();

    fixture.calls.length = 0;
    await settle(fixture.clock, fixture.plugin.newDeviceUnmounter().unmountDevice(deviceMountPath));
    assert.deepEqual(callSequence(fixture.calls), ["NodeUnstageVolume"]);
    assert.equal(await exists(fixture, deviceMountPath), false);
  });

  for (const code of ["Unavailable", "Canceled", "ResourceExhausted", "Aborted", "DeadlineExceeded"] as const) {
    it(`treats a NodePublish failure with ${code} as uncertain and keeps the pod's directory`, async () => {
      const fixture = await csiPluginFixture();
      markAttached(fixture);
      fixture.driver.failNext("NodePublishVolume", new CsiError(code, "try later"));
      const setUp = settle(fixture.clock, fixture.plugin.newMounter(csiPv(), pod).setUp({}));
      await assert.rejects(setUp, { name: "UncertainProgressError" });
      assert.ok(await exists(fixture, `${podVolumeDir}/vol_data.json`));
    });
  }

  it("a final NodeStage error removes the directory, so UnmountDevice has nothing to unstage", async () => {
    const fixture = await csiPluginFixture();
    markAttached(fixture);
    const spec = csiPv();
    fixture.driver.failNext("NodeStageVolume", new CsiError("InvalidArgument", "fsType ext4 is not supported"));
    const deviceMountPath = await fixture.plugin.newDeviceMounter().getDeviceMountPath(spec);
    const stage = settle(fixture.clock, fixture.plugin.newDeviceMounter().mountDevice(spec, "", deviceMountPath, {}));
    await assert.rejects(stage, (err: unknown) => {
      assert.ok(!(err instanceof UncertainProgressError) && !(err instanceof TransientOperationFailure));
      assert.equal((err as Error).message, "rpc error: code = InvalidArgument desc = fsType ext4 is not supported");
      return true;
    });
    assert.equal(await exists(fixture, `${root}/plugins/kubernetes.io/csi/${driverName}/${handleSha}`), false);
    fixture.calls.length = 0;
    await settle(fixture.clock, fixture.plugin.newDeviceUnmounter().unmountDevice(deviceMountPath));
    assert.deepEqual(callSequence(fixture.calls), []);
  });

  it("cannot tear down a corrupted mount that the driver left in place (transport endpoint is not connected)", async () => {
    const fixture = await csiPluginFixture();
    markAttached(fixture);
    await mountFully(fixture, csiPv());
    // The node plugin restarted: its FUSE daemon is gone and the pod's mount is dead (spec §8.3).
    await fixture.host.run("umount", [targetPath]);
    fixture.world.createBucket("photos");
    await fixture.host.startDaemon({ name: "s3fs", command: "s3fs", args: ["photos", targetPath], scope: "agent" });
    fixture.host.killAgentScope();
    // A driver that answers OK without unmounting.
    fixture.driver.nodeUnpublishVolume = async () => ({});
    const tearDown = settle(fixture.clock, fixture.plugin.newUnmounter("pvc-1", uid).tearDown());
    await assert.rejects(tearDown, {
      message:
        `kubernetes.io/csi: Unmounter.TearDownAt failed to clean mount dir [${targetPath}]: ` +
        `stat ${targetPath}: transport endpoint is not connected`,
    });
    assert.ok(await exists(fixture, `${podVolumeDir}/vol_data.json`), "kept for the retry");
  });
});
