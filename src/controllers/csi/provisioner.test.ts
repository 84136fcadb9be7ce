import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CreateVolumeRequest } from "../../csi/proto/types.ts";
import { provisionerVolumeFinalizer } from "./constants.ts";
import { type SidecarEnv, startSidecarEnv, testNamespace, zoneKey } from "./testing/sidecar-test-env.ts";

/** A StorageClass secret template token, `${name}` (written out so it is not read as a JS template). */
function token(name: string): string {
  return `\${${name}}`;
}

const gib = 1024 ** 3;

async function isBound(env: SidecarEnv, claimName: string): Promise<boolean> {
  return (await env.claim(claimName)).status?.phase === "Bound";
}

function createRequests(env: SidecarEnv): CreateVolumeRequest[] {
  return env.mock.calls("CreateVolume").map((call) => call.request as CreateVolumeRequest);
}

describe("external-provisioner", () => {
  it("provisions a claim, the PV controller binds it, and deleting the claim deletes volume and PV", async () => {
    const env = await startSidecarEnv();
    await env.addClass("fast", { parameters: { "csi.storage.k8s.io/fstype": "xfs", tier: "gold" } });
    const claim = await env.addClaim("data");
    const uid = claim.metadata?.uid ?? "";
    const pvName = `pvc-${uid}`;
    await env.runUntil(() => isBound(env, "data"));

    const [request] = createRequests(env);
    assert.equal(request?.name, pvName);
    assert.deepEqual(request?.capacityRange, { requiredBytes: gib, limitBytes: 0 });
    assert.deepEqual(request?.parameters, { tier: "gold" }, "reserved csi.storage.k8s.io/ keys never reach the driver");
    assert.deepEqual(request?.volumeCapabilities, [
      { mount: { fsType: "xfs", mountFlags: [], volumeMountGroup: "" }, accessMode: { mode: "SINGLE_NODE_WRITER" } },
    ]);

    const pv = await env.volume(pvName);
    assert.equal(pv?.spec?.csi?.driver, "mock.csi.kvol.io");
    assert.equal(pv?.spec?.csi?.volumeHandle, `mock-${pvName}`);
    assert.equal(pv?.spec?.csi?.fsType, "xfs");
    assert.match(
      pv?.spec?.csi?.volumeAttributes?.["storage.kubernetes.io/csiProvisionerIdentity"] ?? "",
      /^\d+-\d+-mock\.csi\.kvol\.io$/,
    );
    assert.equal(pv?.spec?.capacity?.storage, "1Gi");
    assert.equal(pv?.spec?.persistentVolumeReclaimPolicy, "Delete");
    assert.equal(pv?.spec?.storageClassName, "fast");
    assert.equal(pv?.spec?.claimRef?.uid, uid);
    assert.equal(pv?.metadata?.annotations?.["pv.kubernetes.io/provisioned-by"], "mock.csi.kvol.io");
    assert.ok(pv?.metadata?.finalizers?.includes(provisionerVolumeFinalizer));
    assert.equal((await env.claim("data")).spec?.volumeName, pvName);

    const identity = env.provisioner?.name ?? "";
    assert.match(identity, /^mock\.csi\.kvol\.io_csi-mock-0_[0-9a-f-]{36}$/);
    // The PV controller and the provisioner react to the same write: only each one's own order is fixed.
    const claimEvents = await env.events("PersistentVolumeClaim", "data");
    assert.deepEqual(
      claimEvents.filter((event) => event.source === "persistentvolume-controller"),
      [
        {
          type: "Normal",
          reason: "ExternalProvisioning",
          message:
            "Waiting for a volume to be created either by the external provisioner 'mock.csi.kvol.io' or manually by " +
            "the system administrator. If volume creation is delayed, please verify that the provisioner is running " +
            "and correctly registered.",
          source: "persistentvolume-controller",
        },
      ],
    );
    assert.deepEqual(
      claimEvents.filter((event) => event.source === identity),
      [
        {
          type: "Normal",
          reason: "Provisioning",
          message: `External provisioner is provisioning volume for claim "${testNamespace}/data"`,
          source: identity,
        },
        {
          type: "Normal",
          reason: "ProvisioningSucceeded",
          message: `Successfully provisioned volume ${pvName}`,
          source: identity,
        },
      ],
    );

    await env.api.client.persistentVolumeClaims.delete(testNamespace, "data");
    await env.runUntil(async () => (await env.volume(pvName)) === undefined);
    assert.deepEqual(
      env.mock.calls("DeleteVolume").map((call) => call.request),
      [{ volumeId: `mock-${pvName}`, secrets: {} }],
    );
    assert.deepEqual(env.mock.snapshot().volumes, []);
    await env.stop();
  });

  it("keeps the finalizer only while the reclaim policy is Delete", async () => {
    const env = await startSidecarEnv();
    await env.addClass("fast");
    const claim = await env.addClaim("data");
    const pvName = `pvc-${claim.metadata?.uid}`;
    await env.runUntil(() => isBound(env, "data"));
    await env.api.client.persistentVolumes.mutate("", pvName, (draft) => {
      draft.spec = { ...draft.spec, persistentVolumeReclaimPolicy: "Retain" };
    });
    await env.runUntil(
      async () => !(await env.volume(pvName))?.metadata?.finalizers?.includes(provisionerVolumeFinalizer),
    );
    await env.api.client.persistentVolumeClaims.delete(testNamespace, "data");
    await env.run(60_000);
    assert.equal((await env.volume(pvName))?.status?.phase, "Released", "a retained volume stays");
    assert.equal(env.mock.calls("DeleteVolume").length, 0);
    await env.stop();
  });

  it("passes the selected node's topology for WaitForFirstConsumer and pins the PV to it", async () => {
    const env = await startSidecarEnv({ mock: { topology: { [zoneKey]: "zone-b" } } });
    await env.addClass("local", { bindingMode: "WaitForFirstConsumer" });
    for (const [name, zone] of [
      ["node-a", "zone-a"],
      ["node-b", "zone-b"],
      ["node-c", "zone-c"],
    ] as const) {
      await env.addNode(name, {
        labels: { [zoneKey]: zone },
        csiNode: { nodeId: `id-${name}`, topologyKeys: [zoneKey] },
      });
    }
    const claim = await env.addClaim("data", { className: "local" });
    await env.run(60_000);
    assert.deepEqual(createRequests(env), [], "nothing is provisioned before the scheduler picks a node");

    await env.selectNode("data", "node-b");
    await env.runUntil(() => isBound(env, "data"));
    const [request] = createRequests(env);
    const zone = (value: string) => ({ segments: { [zoneKey]: value } });
    assert.deepEqual(request?.accessibilityRequirements, {
      requisite: [zone("zone-a"), zone("zone-b"), zone("zone-c")],
      preferred: [zone("zone-b"), zone("zone-c"), zone("zone-a")],
    });
    const pv = await env.volume(`pvc-${claim.metadata?.uid}`);
    assert.deepEqual(pv?.spec?.nodeAffinity, {
      required: { nodeSelectorTerms: [{ matchExpressions: [{ key: zoneKey, operator: "In", values: ["zone-b"] }] }] },
    });
    await env.stop();
  });

  it("reports a CreateVolume error and retries it 1 s, 2 s, 4 s … later until it succeeds", async () => {
    const env = await startSidecarEnv();
    await env.addClass("fast");
    env.mock.inject("CreateVolume", { code: "Internal", message: "backend is full", times: 4 });
    const start = env.api.clock.now();
    await env.addClaim("data");
    await env.runUntil(() => isBound(env, "data"));

    const attempts = env.mock.calls("CreateVolume").map((call) => call.startedAtMs - start);
    const gaps = attempts.slice(1).map((at, index) => at - (attempts[index] ?? 0));
    assert.deepEqual(gaps, [1_000, 2_000, 4_000, 8_000]);
    const failures = (await env.events("PersistentVolumeClaim", "data")).filter(
      (e) => e.reason === "ProvisioningFailed",
    );
    assert.equal(failures.length, 1, "repeats of the same event are counted on one Event");
    assert.deepEqual(failures[0], {
      type: "Warning",
      reason: "ProvisioningFailed",
      message: 'failed to provision volume with StorageClass "fast": rpc error: code = Internal desc = backend is full',
      source: env.provisioner?.name,
    });
    const counted = (await env.api.client.events.list()).items.find((event) => event.reason === "ProvisioningFailed");
    assert.equal(counted?.count, 4);
    await env.stop();
  });

  it("gives the claim back to the scheduler when the selected node has no room (ResourceExhausted)", async () => {
    const env = await startSidecarEnv({ mock: { topology: { [zoneKey]: "zone-a" } } });
    await env.addClass("local", { bindingMode: "WaitForFirstConsumer" });
    await env.addNode("node-a", {
      labels: { [zoneKey]: "zone-a" },
      csiNode: { nodeId: "id-a", topologyKeys: [zoneKey] },
    });
    env.mock.inject("CreateVolume", { code: "ResourceExhausted", message: "no space in zone-a", times: 1 });
    await env.addClaim("data", { className: "local" });
    await env.selectNode("data", "node-a");
    await env.runUntil(
      async () => (await env.claim("data")).metadata?.annotations?.["volume.kubernetes.io/selected-node"] === undefined,
    );
    await env.run(60_000);
    assert.equal(env.mock.calls("CreateVolume").length, 1, "not retried until the scheduler selects a node again");

    await env.selectNode("data", "node-a");
    await env.runUntil(() => isBound(env, "data"));
    await env.stop();
  });

  it("does not provision claims of other provisioners or claims that are already bound", async () => {
    const env = await startSidecarEnv();
    await env.api.client.storageClasses.create({
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: { name: "other" },
      provisioner: "other.csi.example.com",
      volumeBindingMode: "Immediate",
    });
    await env.addClaim("elsewhere", { className: "other" });
    await env.run(60_000);
    assert.equal(env.mock.calls("CreateVolume").length, 0);
    assert.equal((await env.claim("elsewhere")).status?.phase, "Pending");
    await env.stop();
  });

  it("refuses a volume the driver is still publishing and deletes it once it is detached", async () => {
    const env = await startSidecarEnv({ attacher: false });
    await env.addClass("fast");
    const claim = await env.addClaim("data");
    const pvName = `pvc-${claim.metadata?.uid}`;
    await env.runUntil(() => isBound(env, "data"));
    const attachment = await env.addAttachment(pvName, "node-a", `mock-${pvName}`);
    await env.api.client.persistentVolumeClaims.delete(testNamespace, "data");
    await env.run(10_000);
    const failed = (await env.events("PersistentVolume", pvName)).find(
      (event) => event.reason === "VolumeFailedDelete",
    );
    assert.equal(failed?.message, `persistentvolume ${pvName} is still attached to node node-a`);
    assert.equal(env.mock.calls("DeleteVolume").length, 0);

    await env.api.client.volumeAttachments.delete("", attachment);
    await env.runUntil(async () => (await env.volume(pvName)) === undefined);
    assert.equal(env.mock.calls("DeleteVolume").length, 1);
    await env.stop();
  });

  it("sends the provisioner secret to CreateVolume and records the other secret references on the PV", async () => {
    const env = await startSidecarEnv();
    await env.api.client.secrets.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { namespace: testNamespace, name: "data-credentials" },
      data: { password: Buffer.from("hunter2").toString("base64") },
    });
    await env.addClass("fast", {
      parameters: {
        "csi.storage.k8s.io/provisioner-secret-name": `${token("pvc.name")}-credentials`,
        "csi.storage.k8s.io/provisioner-secret-namespace": token("pvc.namespace"),
        "csi.storage.k8s.io/node-stage-secret-name": "stage",
        "csi.storage.k8s.io/node-stage-secret-namespace": "kube-system",
      },
    });
    const claim = await env.addClaim("data");
    await env.runUntil(() => isBound(env, "data"));
    const [request] = createRequests(env);
    assert.deepEqual(request?.secrets, { password: "***stripped***" }, "the driver got the secret; its log redacts it");
    assert.deepEqual(request?.parameters, {});
    const pv = await env.volume(`pvc-${claim.metadata?.uid}`);
    assert.deepEqual(pv?.spec?.csi?.nodeStageSecretRef, { name: "stage", namespace: "kube-system" });
    await env.stop();
  });

  it("fails with the reason when a StorageClass parameter uses the reserved prefix wrongly", async () => {
    const env = await startSidecarEnv();
    await env.addClass("fast", { parameters: { "csi.storage.k8s.io/fs-type": "ext4" } });
    await env.addClaim("data");
    await env.run(5_000);
    const failed = (await env.events("PersistentVolumeClaim", "data")).find((e) => e.reason === "ProvisioningFailed");
    assert.equal(
      failed?.message,
      'failed to provision volume with StorageClass "fast": failed to strip CSI Parameters of prefixed keys: ' +
        'found unknown parameter key "csi.storage.k8s.io/fs-type" with reserved namespace csi.storage.k8s.io/',
    );
    assert.equal(env.mock.calls("CreateVolume").length, 0);
    await env.stop();
  });
});

describe("external-provisioner, a CreateVolume that outlives its timeout", () => {
  it("keeps provisioning after the claim is deleted, so the volume the driver made is reclaimed", async () => {
    const env = await startSidecarEnv();
    await env.addClass("fast");
    env.mock.inject("CreateVolume", { delayMs: 20_000, times: 1 });
    const claim = await env.addClaim("data");
    const pvName = `pvc-${claim.metadata?.uid}`;
    await env.run(15_000);
    const failed = (await env.events("PersistentVolumeClaim", "data")).find((e) => e.reason === "ProvisioningFailed");
    assert.equal(
      failed?.message,
      'failed to provision volume with StorageClass "fast": rpc error: code = DeadlineExceeded desc = context deadline exceeded',
    );
    await env.api.client.persistentVolumeClaims.delete(testNamespace, "data");
    await env.run(0);
    assert.equal(await env.api.client.persistentVolumeClaims.list().then((list) => list.items.length), 0);

    // The retry a second after the timeout still creates the PV; with its claim gone, the PV
    // controller releases it and the provisioner deletes the volume.
    await env.runUntil(() => env.mock.calls("DeleteVolume").length === 1);
    await env.runUntil(async () => (await env.volume(pvName)) === undefined);
    assert.deepEqual(env.mock.snapshot().volumes, []);
    await env.stop();
  });
});
