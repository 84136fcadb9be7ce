import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import type { VolumeAttachment } from "kubernetes-types/storage/v1.js";
import { newTestApi, type TestApi } from "../../../api/client/testing/test-api.ts";
import { SharedInformerFactory } from "../../../api/informer/shared-informer-factory.ts";
import { VolumeSpec } from "../../spec.ts";
import { settle } from "../../testing/sim-node.ts";
import { CsiAttacher, volumeAttachmentName } from "./csi-attacher.ts";

const driver = "disk.csi.example.com";
const handle = "vol-0123";
const csiTimeoutMs = 120_000;

const spec = VolumeSpec.fromPersistentVolume({
  metadata: { name: "pvc-1" },
  spec: { accessModes: ["ReadWriteOnce"], csi: { driver, volumeHandle: handle } },
});

interface Fixture {
  api: TestApi;
  attacher: CsiAttacher;
  vaName: string;
}

async function fixture(): Promise<Fixture> {
  const api = newTestApi();
  const informers = new SharedInformerFactory(api.client, api.clock, {
    resyncPeriodMs: 0,
    rng: api.rng,
    logger: api.logger,
  });
  const attachments = informers.informerFor("VolumeAttachment");
  const drivers = informers.informerFor("CSIDriver");
  informers.start();
  await api.clock.advanceBy(0);
  const attacher = new CsiAttacher({
    api: {
      createVolumeAttachment: (attachment) => api.client.volumeAttachments.create(attachment),
      deleteVolumeAttachment: (name) => api.client.volumeAttachments.delete("", name),
      getVolumeAttachment: (name) => api.client.volumeAttachments.get("", name),
      cachedVolumeAttachment: (name) => attachments.lister.get("", name),
      cachedCsiDriver: (name) => drivers.lister.get("", name),
    },
    clock: api.clock,
    rng: api.rng.stream("csi"),
    csiTimeoutMs,
  });
  return { api, attacher, vaName: volumeAttachmentName(handle, driver, "node-1") };
}

/** What the external-attacher writes. */
async function setStatus(api: TestApi, name: string, status: VolumeAttachment["status"]): Promise<void> {
  await api.client.volumeAttachments.mutate(
    "",
    name,
    (draft) => {
      draft.status = status;
    },
    { subresource: "status" },
  );
}

describe("CsiAttacher (controller side)", () => {
  it("names the VolumeAttachment csi-<sha256(handle + driver + node)>", () => {
    const expected = `csi-${createHash("sha256").update(`${handle}${driver}node-1`).digest("hex")}`;
    assert.equal(volumeAttachmentName(handle, driver, "node-1"), expected);
  });

  it("creates the VolumeAttachment and attaches once the external-attacher says attached", async () => {
    const { api, attacher, vaName } = await fixture();
    const started = api.clock.now();
    const attaching = attacher.attach(spec, "node-1");
    await api.clock.advanceBy(3_000);
    const created = await api.client.volumeAttachments.get("", vaName);
    assert.deepEqual(created.spec, { attacher: driver, nodeName: "node-1", source: { persistentVolumeName: "pvc-1" } });
    await setStatus(api, vaName, { attached: true, attachmentMetadata: { lun: "1" } });
    assert.equal(await settle(api.clock, attaching), "");
    const waitedMs = api.clock.now() - started;
    assert.ok(waitedMs >= 3_000 && waitedMs < 3_000 + 7_700, `noticed after ${waitedMs} ms`);
  });

  it("accepts an existing VolumeAttachment (a restarted controller attaching again)", async () => {
    const { api, attacher, vaName } = await fixture();
    await api.client.volumeAttachments.create({
      apiVersion: "storage.k8s.io/v1",
      kind: "VolumeAttachment",
      metadata: { name: vaName },
      spec: { attacher: driver, nodeName: "node-1", source: { persistentVolumeName: "pvc-1" } },
    });
    await setStatus(api, vaName, { attached: true });
    assert.equal(await settle(api.clock, attacher.attach(spec, "node-1")), "");
  });

  it("fails with the external-attacher's attachError", async () => {
    const { api, attacher, vaName } = await fixture();
    const attaching = attacher.attach(spec, "node-1");
    await api.clock.advanceBy(1_000);
    await setStatus(api, vaName, {
      attached: false,
      attachError: { message: "rpc error: code = NotFound desc = no such volume" },
    });
    await assert.rejects(settle(api.clock, attaching), { message: "rpc error: code = NotFound desc = no such volume" });
  });

  it("gives up after csiTimeout (2 min) with Kubernetes' message", async () => {
    const { api, attacher } = await fixture();
    const started = api.clock.now();
    await assert.rejects(settle(api.clock, attacher.attach(spec, "node-1")), {
      message: `timed out waiting for external-attacher of ${driver} CSI driver to attach volume ${handle}`,
    });
    assert.equal(api.clock.now() - started, csiTimeoutMs);
  });

  it("detaches by deleting the VolumeAttachment and waiting until it is gone", async () => {
    const { api, attacher, vaName } = await fixture();
    const attaching = attacher.attach(spec, "node-1");
    await api.clock.advanceBy(0);
    await api.client.volumeAttachments.mutate("", vaName, (draft) => {
      draft.metadata = { ...draft.metadata, finalizers: [`external-attacher/${driver}`] };
    });
    await setStatus(api, vaName, { attached: true });
    await settle(api.clock, attaching);

    const detaching = attacher.detach(`${driver}^${handle}`, "node-1");
    await api.clock.advanceBy(5_000);
    await setStatus(api, vaName, { attached: true, detachError: { message: "volume is busy" } });
    await assert.rejects(settle(api.clock, detaching), { message: "volume is busy" });

    // The external-attacher retries ControllerUnpublish and clears the error.
    await setStatus(api, vaName, { attached: true });
    const again = attacher.detach(`${driver}^${handle}`, "node-1");
    await api.clock.advanceBy(1_000);
    await api.client.volumeAttachments.mutate("", vaName, (draft) => {
      draft.metadata = { ...draft.metadata, finalizers: [] };
    });
    await settle(api.clock, again);
    await assert.rejects(api.client.volumeAttachments.get("", vaName), /not found/);
  });

  it("answers 'still attached?' from the informer, without an API call", async () => {
    const { api, attacher, vaName } = await fixture();
    const attaching = attacher.attach(spec, "node-1");
    await api.clock.advanceBy(0);
    await setStatus(api, vaName, { attached: true });
    await settle(api.clock, attaching);
    api.client.calls.reset();
    assert.deepEqual(await attacher.volumesAreAttached([spec], "node-1"), new Map([["pvc-1", true]]));
    assert.deepEqual(await attacher.volumesAreAttached([spec], "node-2"), new Map([["pvc-1", false]]));
    assert.equal(api.client.calls.total(), 0, api.client.calls.describe());
  });

  it("needs attaching unless the CSIDriver says attachRequired: false", async () => {
    const { api, attacher } = await fixture();
    assert.equal(attacher.requiresAttach(spec), true, "no CSIDriver object: attach required");
    await api.client.csiDrivers.create({
      apiVersion: "storage.k8s.io/v1",
      kind: "CSIDriver",
      metadata: { name: driver },
      spec: { attachRequired: false },
    });
    await api.clock.advanceBy(0);
    assert.equal(attacher.requiresAttach(spec), false);
  });

  it("lets the kubelet check the attachment with one read", async () => {
    const { api, attacher, vaName } = await fixture();
    await assert.rejects(attacher.checkAttached(spec, "node-1"), /not found/);
    const attaching = attacher.attach(spec, "node-1");
    await api.clock.advanceBy(0);
    await assert.rejects(attacher.checkAttached(spec, "node-1"), {
      message: `volume ${handle} is not attached for volume attachment ${vaName}`,
    });
    await setStatus(api, vaName, { attached: true });
    await settle(api.clock, attaching);
    assert.equal(await attacher.checkAttached(spec, "node-1"), vaName);
  });
});
