import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DeletedVolumeInUseError } from "./provisioner.ts";
import { roundUpToGiB, SimDiskProvisioner } from "./sim-disk-provisioner.ts";
import { MemoryDisks } from "./testing/memory-disks.ts";
import { persistentVolume, persistentVolumeClaim, storageClass } from "./testing/pv-cluster.ts";

function request(accessModes: string[], parameters?: Record<string, string>) {
  const claim = persistentVolumeClaim("default", "data", { accessModes, request: "10Gi" });
  return { pvName: "pvc-1", claim, storageClass: storageClass("fast", parameters ? { parameters } : {}) };
}

describe("the sim-disk provisioner", () => {
  it("rounds sizes up to whole GiB", () => {
    assert.equal(roundUpToGiB(1n), 1n);
    assert.equal(roundUpToGiB(2n ** 30n), 1n);
    assert.equal(roundUpToGiB(2n ** 30n + 1n), 2n);
    assert.equal(roundUpToGiB(0n), 1n);
  });

  it("serves ReadWriteMany only from shared disks", async () => {
    const disks = new MemoryDisks();
    const provisioner = new SimDiskProvisioner(disks);
    await assert.rejects(
      provisioner.provision(request(["ReadWriteMany"])),
      /^Error: invalid AccessModes \[ReadWriteMany\]: only AccessModes \[ReadWriteOnce ReadOnlyMany\] are supported$/,
    );
    const shared = await provisioner.provision(request(["ReadWriteMany"], { multiAttach: "true" }));
    assert.equal(shared.capacity, "10Gi");
    assert.equal(disks.disks.get("pvc-1")?.options.multiAttach, true);
  });

  it("uses the disk of an earlier attempt instead of failing on it", async () => {
    const disks = new MemoryDisks();
    const provisioner = new SimDiskProvisioner(disks);
    await provisioner.provision(request(["ReadWriteOnce"]));
    await provisioner.provision(request(["ReadWriteOnce"]));
    assert.equal(disks.createCalls, 1);
  });

  it("deletes only its own disks, treats a missing disk as deleted, and waits for an attached one", async () => {
    const disks = new MemoryDisks();
    const provisioner = new SimDiskProvisioner(disks);
    const nfs = persistentVolume("pv-nfs");
    const disk = persistentVolume("pv-disk", { flexDiskId: "disk-1" });
    assert.equal(provisioner.handles(nfs), false);
    assert.equal(provisioner.handles(disk), true);

    await provisioner.delete(disk);
    disks.createDisk("disk-1", 2 ** 30);
    disks.attach("disk-1", "node-a");
    await assert.rejects(provisioner.delete(disk), DeletedVolumeInUseError);
    disks.attach("disk-1", undefined);
    await provisioner.delete(disk);
    assert.equal(disks.has("disk-1"), false);
  });
});
