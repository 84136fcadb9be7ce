import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changed, problemsOf } from "./test-support.ts";

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

  it("limits the driver name to 63 characters", () => {
    const long = changed(driver, (copy) => {
      copy.metadata.name = `${"a".repeat(60)}.csi`;
    });
    assert.deepEqual(problemsOf("CSIDriver", long), [
      `metadata.name: Invalid value: "${"a".repeat(60)}.csi": must be no more than 63 characters`,
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
