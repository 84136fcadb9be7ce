/**
 * The storage admission plugins through the API: DefaultStorageClass, StorageObjectInUseProtection
 * and PersistentVolumeClaimResize, with Kubernetes' words.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { startTestServer, type TestServer } from "./test-server.ts";

type Json = Record<string, unknown>;

const claims = "/api/v1/namespaces/default/persistentvolumeclaims";
const classes = "/apis/storage.k8s.io/v1/storageclasses";

function storageClass(name: string, options: { isDefault?: boolean; expandable?: boolean } = {}): Json {
  return {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: {
      name,
      ...(options.isDefault ? { annotations: { "storageclass.kubernetes.io/is-default-class": "true" } } : {}),
    },
    provisioner: "disk.csi.example.com",
    ...(options.expandable === undefined ? {} : { allowVolumeExpansion: options.expandable }),
  };
}

function claim(name: string, storageClassName?: string | null, size = "1Gi"): Json {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name },
    spec: {
      accessModes: ["ReadWriteOnce"],
      resources: { requests: { storage: size } },
      ...(storageClassName === undefined ? {} : { storageClassName }),
    },
  };
}

function specOf(body: Json): Json {
  return body.spec as Json;
}

describe("storage admission", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  it('fills the default class into a claim that names none; the newest default wins; "" stays no class', async () => {
    assert.equal(specOf((await t.call("POST", claims, claim("before-any"))).body).storageClassName, undefined);
    await t.call("POST", classes, storageClass("standard", { isDefault: true }));
    await t.clock.advanceBy(60_000);
    await t.call("POST", classes, storageClass("fast", { isDefault: true }));
    await t.call("POST", classes, storageClass("slow"));
    assert.equal(specOf((await t.call("POST", claims, claim("a"))).body).storageClassName, "fast");
    assert.equal(specOf((await t.call("POST", claims, claim("b", "slow"))).body).storageClassName, "slow");
    assert.equal(specOf((await t.call("POST", claims, claim("c", ""))).body).storageClassName, "");
  });

  it("gives every new claim and volume its protection finalizer", async () => {
    const created = await t.call("POST", claims, claim("data", ""));
    assert.deepEqual((created.body.metadata as Json).finalizers, ["kubernetes.io/pvc-protection"]);
    const volume = {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: "pv-1" },
      spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/data" } },
    };
    const pv = await t.call("POST", "/api/v1/persistentvolumes", volume);
    assert.deepEqual((pv.body.metadata as Json).finalizers, ["kubernetes.io/pv-protection"]);
  });

  async function boundClaim(className: string): Promise<void> {
    await t.call("POST", claims, claim("data", className));
    const read = await t.call("GET", `${claims}/data`);
    const bound = { ...read.body, status: { phase: "Bound", capacity: { storage: "1Gi" } } };
    assert.equal((await t.call("PUT", `${claims}/data/status`, bound)).status, 200);
  }

  it("refuses to grow a bound claim whose class does not allow expansion (403)", async () => {
    await t.call("POST", classes, storageClass("fixed"));
    await boundClaim("fixed");
    const grown = await t.call(
      "PATCH",
      `${claims}/data`,
      { spec: { resources: { requests: { storage: "2Gi" } } } },
      "application/merge-patch+json",
    );
    assert.equal(grown.status, 403);
    assert.equal(grown.body.reason, "Forbidden");
    assert.equal(
      grown.body.message,
      'persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    );
    const stored = await t.call("GET", `${claims}/data`);
    assert.deepEqual((specOf(stored.body).resources as Json).requests, { storage: "1Gi" });
  });

  it("lets a bound claim grow on an expandable class, and never shrink (422)", async () => {
    await t.call("POST", classes, storageClass("elastic", { expandable: true }));
    await boundClaim("elastic");
    const grow = { spec: { resources: { requests: { storage: "2Gi" } } } };
    assert.equal((await t.call("PATCH", `${claims}/data`, grow, "application/merge-patch+json")).status, 200);
    const shrink = { spec: { resources: { requests: { storage: "512Mi" } } } };
    const shrunk = await t.call("PATCH", `${claims}/data`, shrink, "application/merge-patch+json");
    assert.equal(shrunk.status, 422);
    assert.equal(
      shrunk.body.message,
      'PersistentVolumeClaim "data" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity',
    );
  });
});
