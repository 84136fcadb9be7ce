/**
 * disk.csi.kvol.io refuses to delete a snapshot while a CreateVolume restores from it (the CSI
 * spec's FAILED_PRECONDITION "snapshot in use"): a loop disk's restore copies the snapshot's image,
 * and deleting it under the copy would leave the new volume half written.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newTestWorld } from "../../../host/sim/testing/sim-test-world.ts";
import { connectCsiInProcess } from "../../grpc/in-process.ts";
import { createRequest, rejectsWithCode } from "../testing/driver-test-support.ts";
import { createDiskDriver } from "./disk-driver.ts";

describe("disk.csi.kvol.io: a snapshot being restored from", () => {
  it("is FailedPrecondition to DeleteSnapshot until the restore is done, then deleted", async () => {
    const { world } = newTestWorld();
    const host = world.addNode("node-a");
    const client = connectCsiInProcess(createDiskDriver({ disks: world.disks, host, nodeId: "node-a" }));
    const source = (await client.createVolume(createRequest("pvc-source"))).volume?.volumeId ?? "";
    const snapshotId =
      (await client.createSnapshot({ name: "snap-1", sourceVolumeId: source, secrets: {}, parameters: {} })).snapshot
        ?.snapshotId ?? "";

    // The provider's next disk creation (the restore) waits until the test lets it go on.
    const provider = world.disks;
    const createDisk = provider.createDisk.bind(provider);
    let restoreStarted = (): void => undefined;
    let letRestoreFinish = (): void => undefined;
    const started = new Promise<void>((resolve) => {
      restoreStarted = resolve;
    });
    const finish = new Promise<void>((resolve) => {
      letRestoreFinish = resolve;
    });
    const held = async (...args: Parameters<typeof createDisk>) => {
      restoreStarted();
      await finish;
      return createDisk(...args);
    };
    (provider as unknown as { createDisk: typeof held }).createDisk = held;

    const restore = client.createVolume(
      createRequest("pvc-restored", { volumeContentSource: { snapshot: { snapshotId } } }),
    );
    await started;
    await rejectsWithCode(
      client.deleteSnapshot({ snapshotId, secrets: {} }),
      "FailedPrecondition",
      /snapshot \S+ is in use: a volume is being restored from it/,
    );
    letRestoreFinish();
    assert.ok((await restore).volume?.volumeId);
    await client.deleteSnapshot({ snapshotId, secrets: {} });
    assert.equal(provider.hasSnapshot(snapshotId), false);
  });
});
