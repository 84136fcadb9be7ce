import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ControllerPublishVolumeRequest } from "../../csi/proto/types.ts";
import { type SidecarEnv, startSidecarEnv } from "./testing/sidecar-test-env.ts";

const finalizer = "external-attacher/mock-csi-kvol-io";
/** The id mock.csi.kvol.io gives a volume it created under the name `vol-1`. */
const handle = "mock-vol-1";

/** A node with the driver registered and a PV of a volume the driver has, as the attach tests start. */
async function withVolume(env: SidecarEnv): Promise<void> {
  await env.addNode("node-a", { csiNode: { nodeId: "mock-node-a" } });
  const volume = env.mock.state.create("vol-1", 1024 ** 3, "mount", []);
  assert.equal(volume.volumeId, handle);
  await env.addCsiVolume("data", handle);
}

describe("external-attacher", () => {
  it("publishes the volume and marks the VolumeAttachment attached with the publish context", async () => {
    const env = await startSidecarEnv({ provisioner: false });
    await withVolume(env);
    const name = await env.addAttachment("data", "node-a", handle);
    await env.runUntil(async () => (await env.attachment(name))?.status?.attached === true);

    const attachment = await env.attachment(name);
    assert.deepEqual(attachment?.status, {
      attached: true,
      attachmentMetadata: { devicePath: "/dev/mock/mock-vol-1" },
    });
    assert.deepEqual(attachment?.metadata?.finalizers, [finalizer]);
    assert.equal(attachment?.metadata?.annotations?.["csi.alpha.kubernetes.io/node-id"], "mock-node-a");
    assert.ok((await env.volume("data"))?.metadata?.finalizers?.includes(finalizer));
    const [publish] = env.mock
      .calls("ControllerPublishVolume")
      .map((call) => call.request as ControllerPublishVolumeRequest);
    assert.deepEqual(publish, {
      volumeId: handle,
      nodeId: "mock-node-a",
      volumeCapability: {
        mount: { fsType: "ext4", mountFlags: [], volumeMountGroup: "" },
        accessMode: { mode: "SINGLE_NODE_WRITER" },
      },
      readonly: false,
      secrets: {},
      volumeContext: {},
    });
    await env.stop();
  });

  it("writes a publish error to status.attachError and retries with a doubling backoff", async () => {
    const env = await startSidecarEnv({ provisioner: false });
    await withVolume(env);
    env.mock.inject("ControllerPublishVolume", { code: "Unavailable", message: "array offline", times: 3 });
    const start = env.api.clock.now();
    const name = await env.addAttachment("data", "node-a", handle);
    await env.run(500);
    const failed = await env.attachment(name);
    assert.equal(failed?.status?.attached, false);
    assert.equal(failed?.status?.attachError?.message, "rpc error: code = Unavailable desc = array offline");
    assert.match(failed?.status?.attachError?.time ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    await env.runUntil(async () => (await env.attachment(name))?.status?.attached === true);
    // The first attempt's own finalizer write brings the attachment back at once (as in
    // external-attacher); from then on each failure doubles the wait: 1 s, then 4 s after the
    // second failure's 2 s was already covered by the pending 1 s retry.
    const attempts = env.mock.calls("ControllerPublishVolume").map((call) => call.startedAtMs - start);
    assert.deepEqual(attempts, [0, 0, 1_000, 5_000]);
    assert.equal((await env.attachment(name))?.status?.attachError, undefined, "success clears the error");
    await env.stop();
  });

  it("refuses to attach a PersistentVolume that is being deleted", async () => {
    const env = await startSidecarEnv({ provisioner: false });
    await env.addNode("node-a", { csiNode: { nodeId: "mock-node-a" } });
    await env.addCsiVolume("data", handle);
    await env.api.client.persistentVolumes.mutate("", "data", (draft) => {
      draft.metadata = { ...draft.metadata, finalizers: ["example.com/hold"] };
    });
    await env.api.client.persistentVolumes.delete("", "data");
    const name = await env.addAttachment("data", "node-a", handle);
    await env.run(500);
    assert.equal(
      (await env.attachment(name))?.status?.attachError?.message,
      'PersistentVolume "data" is marked for deletion',
    );
    assert.equal(env.mock.calls("ControllerPublishVolume").length, 0);
    assert.equal((await env.attachment(name))?.metadata?.finalizers, undefined, "nothing blocks deleting it");
    await env.stop();
  });

  it("unpublishes on deletion, then the VolumeAttachment and the PV finalizer go", async () => {
    const env = await startSidecarEnv({ provisioner: false });
    await withVolume(env);
    const name = await env.addAttachment("data", "node-a", handle);
    await env.runUntil(async () => (await env.attachment(name))?.status?.attached === true);
    env.mock.inject("ControllerUnpublishVolume", { code: "Internal", message: "still busy", times: 1 });

    await env.api.client.volumeAttachments.delete("", name);
    await env.run(500);
    const deleting = await env.attachment(name);
    assert.equal(deleting?.status?.detachError?.message, "rpc error: code = Internal desc = still busy");
    assert.ok(deleting?.metadata?.deletionTimestamp, "kept by the finalizer while not detached");

    await env.runUntil(async () => (await env.attachment(name)) === undefined);
    assert.deepEqual(
      env.mock.calls("ControllerUnpublishVolume").map((call) => call.request),
      [
        { volumeId: handle, nodeId: "mock-node-a", secrets: {} },
        { volumeId: handle, nodeId: "mock-node-a", secrets: {} },
      ],
    );
    assert.deepEqual(env.mock.snapshot().volumes[0]?.publishedNodeIds, []);
    assert.ok((await env.volume("data"))?.metadata?.finalizers?.includes(finalizer), "the PV is not being deleted");

    await env.api.client.persistentVolumes.delete("", "data");
    await env.runUntil(async () => (await env.volume("data")) === undefined);
    await env.stop();
  });

  it("detaches with the node ID saved on the VolumeAttachment after the node's CSINode is gone", async () => {
    const env = await startSidecarEnv({ provisioner: false });
    await withVolume(env);
    const name = await env.addAttachment("data", "node-a", handle);
    await env.runUntil(async () => (await env.attachment(name))?.status?.attached === true);
    await env.api.client.csiNodes.delete("", "node-a");
    await env.api.client.volumeAttachments.delete("", name);
    await env.runUntil(async () => (await env.attachment(name)) === undefined);
    const [unpublish] = env.mock.calls("ControllerUnpublishVolume");
    assert.deepEqual(unpublish?.request, { volumeId: handle, nodeId: "mock-node-a", secrets: {} });
    await env.stop();
  });

  it("marks attachments of a driver without PUBLISH_UNPUBLISH_VOLUME attached at once, with no finalizer", async () => {
    const env = await startSidecarEnv({ provisioner: false, mock: { capabilities: { publishUnpublish: false } } });
    await withVolume(env);
    const name = await env.addAttachment("data", "node-a", handle);
    await env.runUntil(async () => (await env.attachment(name))?.status?.attached === true);
    assert.equal(env.attacher?.handlerKind, "trivial");
    const attachment = await env.attachment(name);
    assert.deepEqual(attachment?.status, { attached: true });
    assert.equal(attachment?.metadata?.finalizers, undefined);
    assert.equal(env.mock.calls("ControllerPublishVolume").length, 0);
    await env.api.client.volumeAttachments.delete("", name);
    await env.run(0);
    assert.equal(await env.attachment(name), undefined);
    await env.stop();
  });

  it("leaves VolumeAttachments of other drivers alone", async () => {
    const env = await startSidecarEnv({ provisioner: false });
    await withVolume(env);
    await env.api.client.volumeAttachments.create({
      apiVersion: "storage.k8s.io/v1",
      kind: "VolumeAttachment",
      metadata: { name: "csi-other" },
      spec: { attacher: "other.csi.example.com", nodeName: "node-a", source: { persistentVolumeName: "data" } },
    });
    await env.run(60_000);
    const other = await env.attachment("csi-other");
    assert.deepEqual(other?.status, { attached: false });
    assert.equal(other?.metadata?.finalizers, undefined);
    assert.equal(env.mock.calls("ControllerPublishVolume").length, 0);
    await env.stop();
  });
});
