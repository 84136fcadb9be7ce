import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changed, dnsSubdomainMessage, problemsOf } from "./testing/test-support.ts";

const driver = {
  metadata: { name: "hostpath.csi.k8s.io" },
  spec: {
    attachRequired: true,
    podInfoOnMount: true,
    fsGroupPolicy: "File",
    volumeLifecycleModes: ["Persistent", "Ephemeral"],
    tokenRequests: [{ audience: "vault", expirationSeconds: 3600 }],
  } as Record<string, unknown>,
};

describe("CSIDriver", () => {
  it("accepts a driver registration", () => {
    assert.deepEqual(problemsOf("CSIDriver", driver), []);
  });

  it("checks its closed sets", () => {
    const odd = changed(driver, (copy) => {
      copy.spec.fsGroupPolicy = "Always";
      copy.spec.volumeLifecycleModes = ["Persistent", "Inline"];
      copy.spec.tokenRequests = [{ audience: "vault" }, { audience: "vault", expirationSeconds: 60 }];
    });
    assert.deepEqual(problemsOf("CSIDriver", odd), [
      'spec.fsGroupPolicy: Unsupported value: "Always": supported values: "File", "None", "ReadWriteOnceWithFSType"',
      'spec.tokenRequests[1].audience: Duplicate value: "vault"',
      'spec.volumeLifecycleModes: Unsupported value: "Inline": supported values: "Persistent", "Ephemeral"',
    ]);
  });

  it("is named after its driver, a lower-case DNS subdomain", () => {
    const upper = changed(driver, (copy) => {
      copy.metadata.name = "HostPath.CSI";
    });
    assert.deepEqual(problemsOf("CSIDriver", upper), [
      `metadata.name: Invalid value: "HostPath.CSI": ${dnsSubdomainMessage}`,
    ]);
  });

  it("keeps attachRequired on update", () => {
    const noAttach = changed(driver, (copy) => {
      copy.spec.attachRequired = false;
    });
    assert.deepEqual(problemsOf("CSIDriver", noAttach, driver), [
      "spec.attachRequired: Invalid value: false: field is immutable",
    ]);
    const defaulted = changed(driver, (copy) => {
      delete copy.spec.attachRequired;
      copy.spec.podInfoOnMount = false;
    });
    assert.deepEqual(problemsOf("CSIDriver", defaulted, driver), []);
  });
});
