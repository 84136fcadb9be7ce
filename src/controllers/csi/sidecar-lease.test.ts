import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  externalAttacherLeaseName,
  externalProvisionerLeaseName,
  externalResizerLeaseName,
  externalSnapshotterLeaseName,
  sanitizedLeaderElectionName,
  snapshotControllerLeaseName,
} from "./sidecar-lease.ts";

describe("the CSI sidecars' Lease names", () => {
  it("external-provisioner locks on the driver name with every dot, slash and underscore made a dash", () => {
    assert.equal(externalProvisionerLeaseName("disk.csi.kvol.io"), "disk-csi-kvol-io");
    assert.equal(externalProvisionerLeaseName("ebs.csi.aws.com"), "ebs-csi-aws-com");
    assert.equal(externalProvisionerLeaseName("example.com/my_driver"), "example-com-my-driver");
  });

  it("external-attacher locks on external-attacher-leader-<driver>, sanitized the same way", () => {
    assert.equal(externalAttacherLeaseName("disk.csi.kvol.io"), "external-attacher-leader-disk-csi-kvol-io");
    assert.equal(externalAttacherLeaseName("hostpath.csi.k8s.io"), "external-attacher-leader-hostpath-csi-k8s-io");
  });

  it("csi-snapshotter, external-resizer and the snapshot-controller lock on their own names", () => {
    assert.equal(externalSnapshotterLeaseName("disk.csi.kvol.io"), "external-snapshotter-leader-disk-csi-kvol-io");
    assert.equal(externalResizerLeaseName("disk.csi.kvol.io"), "external-resizer-disk-csi-kvol-io");
    assert.equal(snapshotControllerLeaseName, "snapshot-controller-leader");
  });

  it("a name that would end with a dash gets an X, as csi-lib-utils does", () => {
    assert.equal(sanitizedLeaderElectionName("driver."), "driver-X");
    assert.equal(sanitizedLeaderElectionName("host-a_1"), "host-a-1");
  });
});
