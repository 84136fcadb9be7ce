import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CloudDiskProvider } from "../../host/sim/world/disk-provider.ts";
import type { SimDiskProvider } from "../../volume/plugins/simdisk/sim-disk-attacher.ts";
import { type AdcTestEnv, startAdcTestEnv } from "./testing/adc-test-env.ts";

const volume = "kvol.io/sim-disk/disk-1";

/** The disk provider as the controller reaches it, counting attach calls that started a new attachment. */
class CountingProvider implements SimDiskProvider {
  calls = 0;
  newAttachments = 0;
  constructor(private readonly disks: CloudDiskProvider) {}

  attach(diskId: string, nodeName: string, options?: { readOnly?: boolean }): Promise<string> {
    this.calls++;
    if (!this.disks.disk(diskId).attachments.has(nodeName)) this.newAttachments++;
    return this.disks.attach(diskId, nodeName, options);
  }

  detach(diskId: string, nodeName: string): Promise<void> {
    return this.disks.detach(diskId, nodeName);
  }

  attachedTo(nodeName: string): ReturnType<SimDiskProvider["attachedTo"]> {
    return this.disks.attachedTo(nodeName);
  }
}

async function envWithCountingProvider(): Promise<{ env: AdcTestEnv; provider: CountingProvider }> {
  const env = await startAdcTestEnv();
  const provider = new CountingProvider(env.world.disks);
  await env.stopController();
  env.restartController({ simDiskProvider: provider });
  await env.addNode("node-1");
  await env.addDiskVolume("data", "disk-1");
  return { env, provider };
}

describe("AttachDetachController: restart", () => {
  it("restarted during a slow attach, attaches once and reports the volume", async () => {
    const { env, provider } = await envWithCountingProvider();
    env.world.disks.setFaults("disk-1", { attachLatencyMs: 30_000 });
    await env.addPod("web-a", "node-1", "data");
    await env.runFor(10_000);
    assert.equal(env.world.disks.disk("disk-1").attachments.get("node-1")?.state, "attaching");

    await env.stopController();
    env.restartController({ simDiskProvider: provider });
    await env.runUntil(async () => (await env.volumesAttached("node-1")).includes(volume));
    assert.equal(provider.newAttachments, 1, "the provider attached the disk once");
    assert.equal(env.controller.asw.getAttachState(volume, "node-1"), "Attached");
    await env.runFor(5 * 60_000);
    assert.equal(provider.newAttachments, 1);
    await env.stop();
  });

  it("restarted after the attach, rebuilds it from the node status without attaching again", async () => {
    const { env, provider } = await envWithCountingProvider();
    await env.addPod("web-a", "node-1", "data");
    await env.runUntil(async () => (await env.volumesAttached("node-1")).includes(volume));
    await env.setVolumesInUse("node-1", [volume]);
    await env.stopController();
    const callsBefore = provider.calls;

    env.restartController({ simDiskProvider: provider });
    await env.runFor(5 * 60_000);
    assert.equal(provider.calls, callsBefore, "no attach call after the restart");
    assert.equal(env.controller.asw.getAttachState(volume, "node-1"), "Attached");
    assert.deepEqual(await env.volumesAttached("node-1"), [volume]);
    await env.stop();
  });

  it("detaches, after a restart, a volume whose pod went away while it was down", async () => {
    const { env, provider } = await envWithCountingProvider();
    await env.addPod("web-a", "node-1", "data");
    await env.runUntil(async () => (await env.volumesAttached("node-1")).includes(volume));
    await env.stopController();
    await env.forceDeletePod("web-a");

    env.restartController({ simDiskProvider: provider });
    await env.runFor(0);
    // Known from node-1's status, with no pod to give its spec: the detach works from the unique name.
    assert.equal(env.controller.asw.getAttachState(volume, "node-1"), "Attached");
    assert.equal(env.controller.asw.volumeSpec(volume), undefined);
    await env.runUntil(() => !env.world.disks.disk("disk-1").attachments.has("node-1"));
    await env.runUntil(async () => (await env.volumesAttached("node-1")).length === 0);
    await env.stop();
  });
});
