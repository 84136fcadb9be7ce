import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changed, dnsSubdomainMessage, problemsOf, stored } from "./testing/test-support.ts";

const claim = {
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name: "data", namespace: "default" },
  spec: {
    accessModes: ["ReadWriteOnce"] as unknown,
    resources: { requests: { storage: "10Gi" } as Record<string, unknown> },
    storageClassName: "fast" as string | undefined,
  } as Record<string, unknown> & { resources: { requests: Record<string, unknown> } },
  status: {} as Record<string, unknown>,
};

const supportedModes = 'supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"';

describe("PersistentVolumeClaim", () => {
  it("accepts a usual claim", () => {
    assert.deepEqual(problemsOf("PersistentVolumeClaim", claim), []);
  });

  it("rejects bad metadata on an update that sends the stored spec back as a deep copy, as kubectl does", () => {
    const old = stored(claim);
    const update = changed(old, (copy) => {
      copy.metadata = { ...copy.metadata, labels: { tier: "-db" } } as typeof copy.metadata;
    });
    const problems = problemsOf("PersistentVolumeClaim", update, old);
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? "", /^metadata\.labels: Invalid value: "-db": a valid label must be an empty string/);
  });

  it("requires access modes", () => {
    const noModes = changed(claim, (copy) => {
      copy.spec.accessModes = [];
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", noModes), [
      "spec.accessModes: Required value: at least 1 access mode is required",
    ]);
  });

  it("names the supported access modes", () => {
    const typo = changed(claim, (copy) => {
      copy.spec.accessModes = ["ReadWriteSome"];
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", typo), [
      `spec.accessModes: Unsupported value: "ReadWriteSome": ${supportedModes}`,
    ]);
  });

  it("refuses ReadWriteOncePod together with another mode", () => {
    const mixed = changed(claim, (copy) => {
      copy.spec.accessModes = ["ReadWriteOncePod", "ReadOnlyMany"];
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", mixed), [
      "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes",
    ]);
  });

  it("says so when accessModes is a string instead of a list", () => {
    const scalar = changed(claim, (copy) => {
      copy.spec.accessModes = "ReadWriteOnce";
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", scalar), [
      'spec.accessModes: Invalid value: "string": spec.accessModes in body must be of type array: "string"',
    ]);
  });

  it("requires a storage request", () => {
    const noRequest = changed(claim, (copy) => {
      copy.spec.resources.requests = {};
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", noRequest), ["spec.resources[storage]: Required value"]);
  });

  it("reports an unparsable storage request with Kubernetes' quantity message", () => {
    const gigabytes = changed(claim, (copy) => {
      copy.spec.resources.requests.storage = "10GB";
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", gigabytes), [
      "spec.resources[storage]: Invalid value: \"10GB\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ]);
  });

  it("requires the storage request to be above zero", () => {
    const zero = changed(claim, (copy) => {
      copy.spec.resources.requests.storage = "0";
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", zero), [
      'spec.resources[storage]: Invalid value: "0": must be greater than zero',
    ]);
  });

  it("accepts a bare number of bytes, as Kubernetes does", () => {
    const bytes = changed(claim, (copy) => {
      copy.spec.resources.requests.storage = 1073741824;
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", bytes), []);
  });

  it("checks volumeMode, storage class and selector", () => {
    const odd = changed(claim, (copy) => {
      copy.spec.volumeMode = "Raw";
      copy.spec.storageClassName = "Fast_SSD";
      copy.spec.selector = { matchExpressions: [{ key: "tier", operator: "In" }] };
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", odd), [
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      `spec.storageClassName: Invalid value: "Fast_SSD": ${dnsSubdomainMessage}`,
      'spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"',
    ]);
  });

  it("allows an empty storage class (no dynamic provisioning)", () => {
    const static_ = changed(claim, (copy) => {
      copy.spec.storageClassName = "";
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", static_), []);
  });

  it("checks a data source", () => {
    const cloned = changed(claim, (copy) => {
      copy.spec.dataSource = { kind: "Pod", name: "source" };
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", cloned), [
      "spec.dataSource: Invalid value: \"Pod\": must be 'PersistentVolumeClaim' when referencing the default apiGroup",
    ]);
  });
});

describe("PersistentVolumeClaim updates", () => {
  const immutable =
    "spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims";
  const bound = changed(claim, (copy) => {
    copy.status = { phase: "Bound" };
    copy.spec.volumeName = "pv-1";
  });

  it("lets the PV controller set volumeName once", () => {
    const binding = changed(claim, (copy) => {
      copy.spec.volumeName = "pv-1";
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", binding, claim), []);
    const rebinding = changed(bound, (copy) => {
      copy.spec.volumeName = "pv-2";
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", rebinding, bound), [`${immutable}\nchanged: spec.volumeName`]);
  });

  it("lets a bound claim grow", () => {
    const grown = changed(bound, (copy) => {
      copy.spec.resources.requests.storage = "20Gi";
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", grown, bound), []);
  });

  it("does not let a claim shrink to or below its capacity", () => {
    const withCapacity = changed(bound, (copy) => {
      copy.status = { phase: "Bound", capacity: { storage: "10Gi" } };
      copy.spec.resources.requests.storage = "20Gi";
    });
    for (const size of ["5Gi", "10Gi"]) {
      const shrunk = changed(withCapacity, (copy) => {
        copy.spec.resources.requests.storage = size;
      });
      assert.deepEqual(problemsOf("PersistentVolumeClaim", shrunk, withCapacity), [
        "spec.resources.requests.storage: Forbidden: field can not be less than status.capacity",
      ]);
    }
  });

  it("lets a request that grew come down again, above the capacity (recovery from a failed expansion)", () => {
    const expanding = changed(bound, (copy) => {
      copy.status = { phase: "Bound", capacity: { storage: "10Gi" } };
      copy.spec.resources.requests.storage = "100Ti";
    });
    const lowered = changed(expanding, (copy) => {
      copy.spec.resources.requests.storage = "11Gi";
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", lowered, expanding), []);
  });

  it("does not let a pending claim change its request", () => {
    const grown = changed(claim, (copy) => {
      copy.spec.resources.requests.storage = "20Gi";
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", grown, claim), [`${immutable}\nchanged: spec.resources`]);
  });

  it("treats the same amount written differently as no change", () => {
    const rewritten = changed(claim, (copy) => {
      copy.spec.resources.requests.storage = "10240Mi";
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", rewritten, claim), []);
    const inBytes = changed(claim, (copy) => {
      copy.spec.resources.requests.storage = 10737418240;
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", inBytes, claim), []);
  });

  it("refuses a new access mode or volume mode", () => {
    const widened = changed(claim, (copy) => {
      copy.spec.accessModes = ["ReadWriteMany"];
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", widened, claim), [`${immutable}\nchanged: spec.accessModes`]);
    const block = changed(claim, (copy) => {
      copy.spec.volumeMode = "Block";
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", block, claim), [
      `${immutable}\nchanged: spec.volumeMode`,
      'spec.volumeMode: Invalid value: "Block": field is immutable',
    ]);
  });

  it("allows setting a storage class that was never set, but not changing one", () => {
    const unset = changed(claim, (copy) => {
      copy.spec.storageClassName = undefined;
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", claim, unset), []);
    const other = changed(claim, (copy) => {
      copy.spec.storageClassName = "slow";
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", other, claim), [
      `${immutable}\nchanged: spec.storageClassName`,
    ]);
  });

  it("allows moving the beta storage class annotation into spec.storageClassName", () => {
    const annotated = changed(claim, (copy) => {
      copy.spec.storageClassName = undefined;
      Object.assign(copy.metadata, { annotations: { "volume.beta.kubernetes.io/storage-class": "fast" } });
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", claim, annotated), []);
    const relabelled = changed(annotated, (copy) => {
      Object.assign(copy.metadata, { annotations: { "volume.beta.kubernetes.io/storage-class": "slow" } });
    });
    assert.deepEqual(problemsOf("PersistentVolumeClaim", relabelled, annotated), [
      'metadata.annotations.volume.beta.kubernetes.io/storage-class: Invalid value: "slow": field is immutable',
    ]);
  });

  describe("a stored claim bound by the PV controller (volumeName set, the rest of spec shared)", () => {
    const storedClaim = stored(claim);
    const bindAnnotation = { "pv.kubernetes.io/bind-completed": "yes" };

    it("is accepted", () => {
      const binding = {
        ...storedClaim,
        metadata: { ...storedClaim.metadata, annotations: bindAnnotation },
        spec: { ...storedClaim.spec, volumeName: "pv-1" },
      };
      assert.deepEqual(problemsOf("PersistentVolumeClaim", binding, storedClaim), []);
    });

    it("has only its changed metadata checked, when the update lists absent fields as undefined", () => {
      // A stored claim whose name today's rules refuse: only a check of the unchanged name could find it.
      const legacy = stored({ ...claim, metadata: { name: "Data_1", namespace: "default" } });
      const binding = {
        ...legacy,
        metadata: { ...legacy.metadata, generateName: undefined, labels: undefined, annotations: { "-bad": "x" } },
        spec: { ...legacy.spec, volumeName: "pv-1" },
      };
      const problems = problemsOf("PersistentVolumeClaim", binding, legacy);
      assert.equal(problems.length, 1);
      assert.match(problems[0] ?? "", /^metadata\.annotations: Invalid value: "-bad": /);
    });

    it("still has its new annotations, labels and volumeName checked", () => {
      const binding = {
        ...storedClaim,
        metadata: { ...storedClaim.metadata, labels: { "bad label": "x" }, annotations: { "-bad": "x" } },
        spec: { ...storedClaim.spec, volumeName: 7 },
      };
      assert.deepEqual(problemsOf("PersistentVolumeClaim", binding, storedClaim), [
        "metadata.labels: Invalid value: \"bad label\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        "metadata.annotations: Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        'spec.volumeName: Invalid value: "integer": spec.volumeName in body must be of type string: "integer"',
      ]);
    });

    it("is checked the same when the controller writes a deep copy rather than a spread", () => {
      const binding = changed(storedClaim, (copy) => {
        copy.spec.volumeName = "pv-1";
        copy.spec.accessModes = ["ReadWriteSome"];
        Object.assign(copy.metadata, { finalizers: ["kubernetes.io/pvc-protection", "no-domain"] });
      });
      assert.deepEqual(problemsOf("PersistentVolumeClaim", binding, storedClaim), [
        'metadata.finalizers[1]: Invalid value: "no-domain": name is neither a standard finalizer name nor is it fully qualified',
        `spec.accessModes: Unsupported value: "ReadWriteSome": ${supportedModes}`,
        `${immutable}\nchanged: spec.accessModes`,
      ]);
    });

    it("is refused when the claim was bound already, naming volumeName", () => {
      const storedBound = stored(bound);
      const rebinding = { ...storedBound, spec: { ...storedBound.spec, volumeName: "pv-2" } };
      assert.deepEqual(problemsOf("PersistentVolumeClaim", rebinding, storedBound), [
        `${immutable}\nchanged: spec.volumeName`,
      ]);
    });
  });
});
