/**
 * The mount errors of real nodes, as the kubelet reports them there (`Mounting command: mount`, no
 * systemd-run) and as util-linux words them on machines with and without the nfs kernel module.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { diagnoseOperationError } from "./operation-diagnosis.ts";

const target = "/var/lib/kubelet/pods/8c1d/volumes/kubernetes.io~nfs/nfs-pv-211";

function nfsMountError(output: string): string {
  return [
    'MountVolume.SetUp failed for volume "nfs-pv-211" (UniqueName: "kubernetes.io/nfs/8c1d-nfs-pv-211") pod "nfs-user" (UID: "8c1d") : mount failed: exit status 32',
    "Mounting command: mount",
    `Mounting arguments: -t nfs 127.0.0.1:/exports/211 ${target}`,
    `Output: ${output}`,
  ].join("\n");
}

describe("diagnosing a failed mount", () => {
  it("exit status 32 on a kernel without nfs: unknown filesystem type 'nfs' is a missing mount.nfs", () => {
    const diagnosis = diagnoseOperationError(
      nfsMountError(
        `mount: ${target}: unknown filesystem type 'nfs'.\n       dmesg(1) may have more information after failed mount system call.\n`,
      ),
      "node-1",
    );
    assert.equal(diagnosis.state, "mount failed: exit status 32: node node-1 has no /sbin/mount.nfs helper");
    assert.equal(
      diagnosis.remedy[0],
      "Install the helper on node node-1: apt-get install nfs-common (Debian/Ubuntu) or dnf install nfs-utils (RHEL/Fedora).",
    );
  });

  it("exit status 32 on a kernel with nfs: the bad option that asks for the helper program", () => {
    const diagnosis = diagnoseOperationError(
      nfsMountError(
        `mount: ${target}: bad option; for several filesystems (e.g. nfs, cifs) you might need a /sbin/mount.<type> helper program.\n`,
      ),
      "node-2",
    );
    assert.equal(diagnosis.state, "mount failed: exit status 32: node node-2 has no /sbin/mount.nfs helper");
  });

  it("an unknown filesystem type that no helper brings is not called a missing helper", () => {
    const error = [
      'MountVolume.MountDevice failed for volume "pv-1" : mount failed: exit status 32',
      "Mounting command: mount",
      "Mounting arguments: -t btrfs /dev/loop3 /var/lib/kubelet/plugins/kubernetes.io/csi/x/globalmount",
      "Output: mount: /var/lib/kubelet/plugins/kubernetes.io/csi/x/globalmount: unknown filesystem type 'btrfs'.",
    ].join("\n");
    const diagnosis = diagnoseOperationError(error, "node-1");
    assert.equal(diagnosis.state, "MountVolume.MountDevice failed: mount failed: exit status 32");
  });
});
