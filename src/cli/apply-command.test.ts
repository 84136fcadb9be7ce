import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { runApplyCommand } from "./apply-command.ts";
import { type CliTestServer, startCliTestServer } from "./client/testing/cli-test-support.ts";

const storageClass = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: standard }
provisioner: kvol.io/sim-disk
volumeBindingMode: WaitForFirstConsumer
`;
const claimAndPod = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: data }
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: standard
  resources: { requests: { storage: 1Gi } }
---
apiVersion: v1
kind: Pod
metadata: { name: web }
spec:
  containers:
    - name: app
      image: busybox
      volumeMounts: [{ name: data, mountPath: /data }]
  volumes:
    - name: data
      persistentVolumeClaim: { claimName: data }
`;

describe("kvol apply", () => {
  let t: CliTestServer;
  beforeEach(async () => {
    t = await startCliTestServer();
  });
  afterEach(() => t.close());

  it("applies a directory's files in name order, every document of each", async () => {
    const dir = join(t.dir, "manifests");
    mkdirSync(dir);
    writeFileSync(join(dir, "1-class.yaml"), storageClass);
    writeFileSync(join(dir, "2-app.yml"), claimAndPod);
    writeFileSync(join(dir, "notes.txt"), "not a manifest");
    const io = t.io();
    assert.equal(await runApplyCommand(["-f", dir], io), 0, io.stderr);
    assert.equal(
      io.stdout,
      [
        "storageclass.storage.k8s.io/standard created",
        "persistentvolumeclaim/data created",
        "pod/web created",
        "",
      ].join("\n"),
    );
    const pod = await t.server.client.pods.get("default", "web");
    assert.equal(pod.spec?.volumes?.[0]?.persistentVolumeClaim?.claimName, "data");
    const managers = pod.metadata?.managedFields?.map((entry) => entry.manager);
    assert.deepEqual(managers, ["kvol"]);
  });

  it("reads stdin with -f -, and applying again updates in place", async () => {
    const first = t.io(storageClass);
    assert.equal(await runApplyCommand(["-f", "-"], first), 0, first.stderr);
    const changed = storageClass.replace("WaitForFirstConsumer", "WaitForFirstConsumer\nallowVolumeExpansion: true");
    const again = t.io(changed);
    assert.equal(await runApplyCommand(["-f", "-"], again), 0, again.stderr);
    assert.equal(again.stdout, "storageclass.storage.k8s.io/standard serverside-applied\n");
    const stored = await t.server.client.storageClasses.get("", "standard");
    assert.equal(stored.allowVolumeExpansion, true);
  });

  it("reports an object it cannot apply, applies the rest, and exits 1", async () => {
    const text = `apiVersion: v1
kind: Widget
metadata: { name: w }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: settings, namespace: other }
data: { a: "1" }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: kept }
`;
    const io = t.io(text);
    assert.equal(await runApplyCommand(["-f", "-", "-n", "default"], io), 1);
    assert.match(io.stderr, /STDIN \(document 1\): no matches for kind "Widget" in version "v1"/);
    assert.match(io.stderr, /the namespace from the provided object "other" does not match the namespace "default"/);
    assert.equal(io.stdout, "configmap/kept created\n");
  });

  it("names a file that is not YAML", async () => {
    const path = join(t.dir, "broken.yaml");
    writeFileSync(path, "kind: [unclosed");
    const io = t.io();
    assert.equal(await runApplyCommand(["-f", path], io), 2);
    assert.match(io.stderr, /broken\.yaml is not valid YAML/);
  });
});
