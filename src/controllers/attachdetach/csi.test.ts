import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { VolumeAttachment } from "kubernetes-types/storage/v1.js";
import { volumeAttachmentName } from "../../volume/plugins/csi/csi-attacher.ts";
import { type AdcTestEnv, startAdcTestEnv } from "./testing/adc-test-env.ts";

const driver = "disk.csi.example.com";
const volume = `kubernetes.io/csi/${driver}^vol-1`;
const vaName = volumeAttachmentName("vol-1", driver, "node-1");

async function csiEnv(): Promise<AdcTestEnv> {
  const env = await startAdcTestEnv();
  await env.addNode("node-1");
  await env.addBoundVolume("data", { csi: { driver, volumeHandle: "vol-1" } });
  return env;
}

function attachment(env: AdcTestEnv): Promise<VolumeAttachment | undefined> {
  return env.api.client.volumeAttachments.get("", vaName).catch(() => undefined);
}

/** The external-attacher's answer. */
async function answer(env: AdcTestEnv, status: VolumeAttachment["status"]): Promise<void> {
  await env.api.client.volumeAttachments.mutate(
    "",
    vaName,
    (draft) => {
      draft.status = status;
    },
    { subresource: "status" },
  );
}

describe("AttachDetachController: CSI volumes through VolumeAttachments", () => {
  it("creates the VolumeAttachment, waits for the external-attacher and reports the volume", async () => {
    const env = await csiEnv();
    await env.addPod("web-a", "node-1", "data");
    await env.runFor(100);
    const created = await attachment(env);
    assert.deepEqual(created?.spec, { attacher: driver, nodeName: "node-1", source: { persistentVolumeName: "data" } });
    await env.runFor(10_000);
    assert.deepEqual(await env.volumesAttached("node-1"), [], "not reported before the external-attacher answers");
    await answer(env, { attached: true });
    await env.runUntil(async () => (await env.volumesAttached("node-1")).includes(volume));
    assert.deepEqual(await env.podEvents(), [
      'web-a Normal SuccessfulAttachVolume AttachVolume.Attach succeeded for volume "data" ',
    ]);

    await env.forceDeletePod("web-a");
    await env.runUntil(async () => (await attachment(env)) === undefined);
    assert.deepEqual(await env.volumesAttached("node-1"), []);
    await env.stop();
  });

  it("reports the external-attacher's error on the pod and tries again with backoff", async () => {
    const env = await csiEnv();
    await env.addPod("web-a", "node-1", "data");
    await env.runFor(100);
    await answer(env, { attached: false, attachError: { message: "rpc error: code = Internal desc = quota" } });
    await env.runFor(1_000);
    assert.deepEqual(await env.podEvents(), [
      'web-a Warning FailedAttachVolume AttachVolume.Attach failed for volume "data" : rpc error: code = Internal desc = quota',
    ]);
    assert.equal(env.controller.asw.getAttachState(volume, "node-1"), "Uncertain");
    await answer(env, { attached: true });
    await env.runUntil(async () => (await env.volumesAttached("node-1")).includes(volume));
    await env.stop();
  });

  it("leaves volumes of drivers with attachRequired: false alone", async () => {
    const env = await csiEnv();
    await env.api.client.csiDrivers.create({
      apiVersion: "storage.k8s.io/v1",
      kind: "CSIDriver",
      metadata: { name: driver },
      spec: { attachRequired: false },
    });
    await env.addPod("web-a", "node-1", "data");
    await env.runFor(60_000);
    assert.equal(await attachment(env), undefined);
    assert.equal(env.controller.dsw.getVolumesToAttach().length, 0);
    await env.stop();
  });

  it("after a restart, treats a VolumeAttachment missing from the node status as uncertain", async () => {
    const env = await csiEnv();
    await env.addPod("web-a", "node-1", "data");
    await env.runFor(100);
    await env.stopController();
    await answer(env, { attached: true });
    await env.forceDeletePod("web-a");
    env.restartController();
    await env.runFor(0);
    // No pod wants it any more: the uncertain attachment is detached (the VolumeAttachment deleted).
    await env.runUntil(async () => (await attachment(env)) === undefined);
    assert.equal(env.controller.asw.getAttachState(volume, "node-1"), "Detached");
    await env.stop();
  });
});
