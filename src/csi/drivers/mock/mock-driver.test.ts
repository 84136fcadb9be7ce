import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { VirtualClock } from "../../../runtime/virtual-clock.ts";
import { connectCsiInProcess } from "../../grpc/in-process.ts";
import {
  blockCapability,
  createRequest,
  mountCapability,
  publishRequest,
  rejectsWithCode,
  stageRequest,
} from "../testing/driver-test-support.ts";
import { MockDriver, type MockDriverOptions } from "./mock-driver.ts";

const staging = "/var/lib/kubelet/plugins/kubernetes.io/csi/mock.csi.kvol.io/abc/globalmount";
const target = "/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~csi/pv-1/mount";

function setUp(options: Partial<MockDriverOptions> = {}) {
  const clock = new VirtualClock();
  const mock = new MockDriver({ clock, nodeId: "node-a", ...options });
  return { clock, mock, client: connectCsiInProcess(mock.implementations()) };
}

describe("mock.csi.kvol.io", () => {
  it("keeps volumes, publications and node mounts in memory through a whole lifecycle", async () => {
    const { mock, client } = setUp();
    const { volume } = await client.createVolume(createRequest("pvc-1"));
    const volumeId = volume?.volumeId ?? "";
    const { publishContext } = await client.controllerPublishVolume({
      volumeId,
      nodeId: "node-a",
      volumeCapability: mountCapability(),
      readonly: false,
      secrets: {},
      volumeContext: {},
    });
    assert.deepEqual(publishContext, { devicePath: `/dev/mock/${volumeId}` });
    await client.nodeStageVolume(stageRequest(volumeId, staging));
    await client.nodePublishVolume(publishRequest(volumeId, staging, target, { readonly: true }));
    assert.deepEqual(mock.snapshot(), {
      volumes: [{ volumeId, name: "pvc-1", capacityBytes: 10 * 1024 ** 2, publishedNodeIds: ["node-a"] }],
      staged: { [staging]: volumeId },
      published: { [target]: { volumeId, readonly: true } },
    });
    await rejectsWithCode(
      client.deleteVolume({ volumeId, secrets: {} }),
      "FailedPrecondition",
      /published to node node-a/,
    );
    await client.nodeUnpublishVolume({ volumeId, targetPath: target });
    await client.nodeUnstageVolume({ volumeId, stagingTargetPath: staging });
    await client.controllerUnpublishVolume({ volumeId, nodeId: "node-a", secrets: {} });
    await client.deleteVolume({ volumeId, secrets: {} });
    assert.deepEqual(mock.snapshot(), { volumes: [], staged: {}, published: {} });
  });

  it("logs every call with its request (secrets redacted), its outcome and the virtual times", async () => {
    const { clock, mock, client } = setUp();
    await clock.advanceBy(5000);
    await client.createVolume(createRequest("pvc-1", { secrets: { password: "hunter2" } }));
    await rejectsWithCode(client.nodeStageVolume(stageRequest("mock-nope", staging)), "NotFound");
    const [create, stage] = mock.calls();
    assert.ok(create !== undefined && stage !== undefined);
    assert.equal(create.method, "CreateVolume");
    assert.deepEqual((create.request as { secrets: unknown }).secrets, { password: "***stripped***" });
    assert.equal(create.startedAtMs, clock.now());
    assert.equal((create.response as { volume: { volumeId: string } }).volume.volumeId, "mock-pvc-1");
    assert.deepEqual(stage.error, { code: "NotFound", message: "NodeStageVolume: volume mock-nope does not exist" });
    assert.equal(mock.calls("NodeStageVolume").length, 1);
  });

  it("a hook with times: 1 fails the next call with its code, then the driver answers normally", async () => {
    const { mock, client } = setUp();
    await client.createVolume(createRequest("pvc-1"));
    mock.hooks.set("NodeStageVolume", { code: "DeadlineExceeded", times: 1 });
    await rejectsWithCode(client.nodeStageVolume(stageRequest("mock-pvc-1", staging)), "DeadlineExceeded", /injected/);
    assert.deepEqual(mock.snapshot().staged, {}, "the failed call did nothing");
    await client.nodeStageVolume(stageRequest("mock-pvc-1", staging));
    assert.deepEqual(mock.snapshot().staged, { [staging]: "mock-pvc-1" });
    assert.deepEqual(mock.hooks.active(), []);
  });

  it("a delay hook holds the call for that long on the driver's clock", async () => {
    const { clock, mock, client } = setUp();
    await client.createVolume(createRequest("pvc-1"));
    mock.hooks.set("ControllerPublishVolume", { delayMs: 180_000 });
    let answered = false;
    const call = client
      .controllerPublishVolume({
        volumeId: "mock-pvc-1",
        nodeId: "node-a",
        volumeCapability: mountCapability(),
        readonly: false,
        secrets: {},
        volumeContext: {},
      })
      .then(() => {
        answered = true;
      });
    await clock.advanceBy(179_999);
    assert.equal(answered, false);
    await clock.advanceBy(1);
    await call;
    const [publish] = mock.calls("ControllerPublishVolume");
    assert.equal((publish?.finishedAtMs ?? 0) - (publish?.startedAtMs ?? 0), 180_000);
  });

  it("a hook can be limited to one volume and cleared", async () => {
    const { mock, client } = setUp();
    await client.createVolume(createRequest("a"));
    await client.createVolume(createRequest("b"));
    mock.hooks.set("DeleteVolume", { code: "Internal", message: "backend is down", volumeId: "mock-a" });
    await rejectsWithCode(client.deleteVolume({ volumeId: "mock-a", secrets: {} }), "Internal", /^backend is down$/);
    await client.deleteVolume({ volumeId: "mock-b", secrets: {} });
    await rejectsWithCode(client.deleteVolume({ volumeId: "mock-a", secrets: {} }), "Internal");
    mock.hooks.clear("DeleteVolume");
    await client.deleteVolume({ volumeId: "mock-a", secrets: {} });
  });

  it("rejects a hook that does nothing or has a bad count", () => {
    const { mock } = setUp();
    assert.throws(() => mock.hooks.set("Probe", {}), /needs a code, a delayMs, or both/);
    assert.throws(() => mock.hooks.set("Probe", { code: "Internal", times: 0 }), /times must be a whole number > 0/);
  });

  it("without STAGE_UNSTAGE, PUBLISH_UNPUBLISH and block, it says so and acts accordingly", async () => {
    const { client } = setUp({ capabilities: { stageUnstage: false, publishUnpublish: false, block: false } });
    const node = (await client.nodeGetCapabilities({})).capabilities.map((c) => c.rpc?.type);
    assert.equal(node.includes("STAGE_UNSTAGE_VOLUME"), false);
    const controller = (await client.controllerGetCapabilities({})).capabilities.map((c) => c.rpc?.type);
    assert.equal(controller.includes("PUBLISH_UNPUBLISH_VOLUME"), false);
    await rejectsWithCode(
      client.createVolume(createRequest("raw", { volumeCapabilities: [blockCapability()] })),
      "InvalidArgument",
      /block access type is not supported by mock.csi.kvol.io/,
    );
    await client.createVolume(createRequest("pvc-1"));
    await rejectsWithCode(client.nodeStageVolume(stageRequest("mock-pvc-1", staging)), "Unimplemented");
    await client.nodePublishVolume(publishRequest("mock-pvc-1", "", target));
    const stats = await client.nodeGetVolumeStats({
      volumeId: "mock-pvc-1",
      volumePath: target,
      stagingTargetPath: "",
    });
    assert.equal(stats.usage[0]?.total, 10 * 1024 ** 2);
  });

  it("with staging on, a publish of an unstaged volume is FailedPrecondition", async () => {
    const { client } = setUp();
    await client.createVolume(createRequest("pvc-1"));
    await rejectsWithCode(
      client.nodePublishVolume(publishRequest("mock-pvc-1", staging, target)),
      "FailedPrecondition",
      /not staged/,
    );
  });
});
