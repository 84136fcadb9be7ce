import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolumeClaim } from "../../api/objects.ts";
import { nodePublishSecretKeys, provisionerSecretKeys, secretReferenceFor } from "./secret-references.ts";
import { driverParameters, fsTypeFromParameters } from "./storage-class-parameters.ts";

/** A StorageClass secret template token, `${name}` (written out so it is not read as a JS template). */
function token(name: string): string {
  return `\${${name}}`;
}

const claim: PersistentVolumeClaim = {
  metadata: { namespace: "shop", name: "data", annotations: { "example.com/owner": "team-a" } },
};

describe("StorageClass parameters", () => {
  it("takes the filesystem type from the prefixed or the deprecated key, else the default", () => {
    assert.equal(fsTypeFromParameters({ "csi.storage.k8s.io/fstype": "xfs" }), "xfs");
    assert.equal(fsTypeFromParameters({ fsType: "ext3" }), "ext3");
    assert.equal(fsTypeFromParameters({}, "ext4"), "ext4");
    assert.throws(() => fsTypeFromParameters({ fsType: "ext3", "csi.storage.k8s.io/fstype": "xfs" }), /both "fstype"/);
  });

  it("passes everything but the reserved keys to the driver, and refuses unknown reserved keys", () => {
    assert.deepEqual(
      driverParameters({
        fsType: "ext4",
        "csi.storage.k8s.io/fstype": "xfs",
        "csi.storage.k8s.io/provisioner-secret-name": "s",
        tier: "gold",
      }),
      { fsType: "ext4", tier: "gold" },
    );
    assert.throws(
      () => driverParameters({ "csi.storage.k8s.io/typo": "x" }),
      /found unknown parameter key "csi.storage.k8s.io\/typo"/,
    );
  });

  it("resolves secret name templates from the claim and the PV name", () => {
    const parameters = {
      "csi.storage.k8s.io/node-publish-secret-name": `${token("pvc.annotations['example.com/owner']")}-${token("pv.name")}`,
      "csi.storage.k8s.io/node-publish-secret-namespace": token("pvc.namespace"),
    };
    assert.deepEqual(secretReferenceFor(nodePublishSecretKeys, parameters, "pvc-1", claim), {
      namespace: "shop",
      name: "team-a-pvc-1",
    });
    assert.equal(secretReferenceFor(provisionerSecretKeys, parameters, "pvc-1", claim), undefined);
  });

  it("says what is wrong with a secret reference", () => {
    const onlyName = { "csi.storage.k8s.io/provisioner-secret-name": "s" };
    assert.throws(() => secretReferenceFor(provisionerSecretKeys, onlyName, "pvc-1", claim), /Both must be specified/);
    const badToken = {
      "csi.storage.k8s.io/provisioner-secret-name": "s",
      "csi.storage.k8s.io/provisioner-secret-namespace": token("pvc.name"),
    };
    assert.throws(
      () => secretReferenceFor(provisionerSecretKeys, badToken, "pvc-1", claim),
      /error resolving value "\$\{pvc.name\}": invalid tokens: \["pvc.name"\]/,
    );
    const badName = {
      "csi.storage.k8s.io/provisioner-secret-name": "Not_Valid",
      "csi.storage.k8s.io/provisioner-secret-namespace": "shop",
    };
    assert.throws(
      () => secretReferenceFor(provisionerSecretKeys, badName, "pvc-1", claim),
      /"Not_Valid" is not a valid secret name/,
    );
  });
});
