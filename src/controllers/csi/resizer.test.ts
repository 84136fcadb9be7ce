/**
 * external-resizer with the real PV controller and mock.csi.kvol.io: a bound claim's request goes
 * up, the volume grows, and the claim says what is left for the node — with Kubernetes' conditions,
 * statuses and events; an infeasible size is recovered from by lowering the request.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { connectCsiInProcess } from "../../csi/grpc/in-process.ts";
import type { ControllerExpandVolumeRequest } from "../../csi/proto/types.ts";
import { ExpandController } from "../volumeexpand/expand-controller.ts";
import { ExternalResizer } from "./resizer.ts";
import { type SidecarEnv, startSidecarEnv, testNamespace } from "./testing/sidecar-test-env.ts";

async function boundClaimWithResizer(): Promise<{ env: SidecarEnv; resizer: ExternalResizer; pvName: string }> {
  const env = await startSidecarEnv({ attacher: false });
  const resizer = new ExternalResizer(env.context, {
    driverName: "mock.csi.kvol.io",
    driver: connectCsiInProcess(env.mock.implementations()),
  });
  resizer.start();
  await env.addClass("fast");
  await env.addClaim("data");
  await env.runUntil(async () => (await env.claim("data")).status?.phase === "Bound");
  return { env, resizer, pvName: (await env.claim("data")).spec?.volumeName ?? "" };
}

async function requestStorage(env: SidecarEnv, size: string): Promise<void> {
  await env.api.client.persistentVolumeClaims.mutate(testNamespace, "data", (draft) => {
    draft.spec = { ...draft.spec, resources: { requests: { storage: size } } };
  });
}

describe("external-resizer", () => {
  it("grows the volume, sets the PV's capacity and leaves the filesystem to the node (FileSystemResizePending)", async () => {
    const { env, resizer, pvName } = await boundClaimWithResizer();
    await requestStorage(env, "2Gi");
    await env.runUntil(async () => (await env.volume(pvName))?.spec?.capacity?.storage === "2Gi");
    await env.runUntil(
      async () => (await env.claim("data")).status?.allocatedResourceStatuses?.storage === "NodeResizePending",
    );

    const claim = await env.claim("data");
    assert.equal(claim.status?.capacity?.storage, "1Gi", "the claim shows the new size only once the filesystem grew");
    assert.deepEqual(claim.status?.allocatedResources, { storage: "2Gi" });
    const pending = claim.status?.conditions?.find((condition) => condition.type === "FileSystemResizePending");
    assert.equal(pending?.status, "True");
    assert.equal(
      pending?.message,
      "Waiting for user to (re-)start a pod to finish file system resize of volume on node.",
    );
    assert.equal(
      claim.status?.conditions?.some((condition) => condition.type === "Resizing"),
      false,
    );
    assert.equal(env.mock.calls("ControllerExpandVolume").length, 1);

    const events = (await env.events("PersistentVolumeClaim", "data")).filter((event) =>
      ["Resizing", "FileSystemResizeRequired"].includes(event.reason),
    );
    assert.deepEqual(
      events.map(({ type, reason, message, source }) => ({ type, reason, message, source })),
      [
        {
          type: "Normal",
          reason: "Resizing",
          message: `External resizer is resizing volume ${pvName}`,
          source: "external-resizer mock.csi.kvol.io",
        },
        {
          type: "Normal",
          reason: "FileSystemResizeRequired",
          message: "Require file system resize of volume on node",
          source: "external-resizer mock.csi.kvol.io",
        },
      ],
    );
    await resizer.stop();
    await env.stop();
  });

  it("kube-controller-manager's expand controller says an external resizer must do it (ExternalExpanding)", async () => {
    const { env, resizer } = await boundClaimWithResizer();
    const expander = new ExpandController(env.context);
    expander.start();
    await requestStorage(env, "2Gi");
    await env.runUntil(async () =>
      (await env.events("PersistentVolumeClaim", "data")).some((event) => event.reason === "ExternalExpanding"),
    );
    const expanding = (await env.events("PersistentVolumeClaim", "data")).filter(
      (event) => event.reason === "ExternalExpanding",
    );
    assert.deepEqual(
      expanding.map(({ type, message, source }) => ({ type, message, source })),
      [{ type: "Warning", message: "waiting for an external controller to expand this PVC", source: "volume_expand" }],
    );
    await expander.stop();
    await resizer.stop();
    await env.stop();
  });

  it("marks an infeasible size ControllerResizeInfeasible, and retries with a lowered request", async () => {
    const { env, resizer, pvName } = await boundClaimWithResizer();
    env.mock.hooks.set("ControllerExpandVolume", { code: "OutOfRange", message: "no disk is that large", times: 1 });
    await requestStorage(env, "100Ti");
    await env.runUntil(
      async () => (await env.claim("data")).status?.allocatedResourceStatuses?.storage === "ControllerResizeInfeasible",
    );
    const failed = await env.claim("data");
    assert.deepEqual(failed.status?.allocatedResources, { storage: "100Ti" });
    const error = failed.status?.conditions?.find((condition) => condition.type === "ControllerResizeError");
    assert.equal(error?.message, "failed to expand pvc with rpc error: code = OutOfRange desc = no disk is that large");
    const resizeFailed = (await env.events("PersistentVolumeClaim", "data")).find(
      (event) => event.reason === "VolumeResizeFailed",
    );
    assert.equal(resizeFailed?.type, "Warning");
    assert.equal(
      resizeFailed?.message,
      `resize volume "${pvName}" by resizer "mock.csi.kvol.io" failed: rpc error: code = OutOfRange desc = no disk is that large`,
    );
    assert.equal((await env.volume(pvName))?.spec?.capacity?.storage, "1Gi");

    // Nothing changes until the user does: the same infeasible size is not asked for again.
    await env.run(10 * 60_000);
    assert.equal(env.mock.calls("ControllerExpandVolume").length, 1);

    await requestStorage(env, "3Gi");
    await env.runUntil(async () => (await env.volume(pvName))?.spec?.capacity?.storage === "3Gi");
    await env.runUntil(
      async () => (await env.claim("data")).status?.allocatedResourceStatuses?.storage === "NodeResizePending",
    );
    const recovered = await env.claim("data");
    assert.deepEqual(recovered.status?.allocatedResources, { storage: "3Gi" });
    const lastRequest = env.mock.calls("ControllerExpandVolume").at(-1)?.request as ControllerExpandVolumeRequest;
    assert.equal(lastRequest.capacityRange?.requiredBytes, 3 * 1024 ** 3);
    await resizer.stop();
    await env.stop();
  });

  it("passes the class's controller-expand secret to ControllerExpandVolume, and says so when it is missing", async () => {
    const env = await startSidecarEnv({ attacher: false });
    const resizer = new ExternalResizer(env.context, {
      driverName: "mock.csi.kvol.io",
      driver: connectCsiInProcess(env.mock.implementations()),
    });
    resizer.start();
    await env.addClass("fast", {
      parameters: {
        "csi.storage.k8s.io/controller-expand-secret-name": "expand-creds",
        // A template the provisioner fills in from the claim.
        "csi.storage.k8s.io/controller-expand-secret-namespace": `\${pvc.namespace}`,
      },
    });
    await env.addClaim("data");
    await env.runUntil(async () => (await env.claim("data")).status?.phase === "Bound");
    const pvName = (await env.claim("data")).spec?.volumeName ?? "";
    const ref = (await env.volume(pvName))?.spec?.csi?.controllerExpandSecretRef;
    assert.deepEqual(ref, { name: "expand-creds", namespace: testNamespace });

    await requestStorage(env, "2Gi");
    await env.runUntil(async () =>
      (await env.events("PersistentVolumeClaim", "data")).some((event) => event.reason === "VolumeResizeFailed"),
    );
    const failed = (await env.events("PersistentVolumeClaim", "data")).find(
      (event) => event.reason === "VolumeResizeFailed",
    );
    assert.equal(
      failed?.message,
      `resize volume "${pvName}" by resizer "mock.csi.kvol.io" failed: error getting secret expand-creds in namespace ${testNamespace}: secrets "expand-creds" not found`,
    );
    assert.equal(env.mock.calls("ControllerExpandVolume").length, 0, "no call without the credentials");

    await env.api.client.secrets.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { namespace: testNamespace, name: "expand-creds" },
      data: { password: Buffer.from("hunter2").toString("base64") },
    });
    await env.runUntil(async () => (await env.volume(pvName))?.spec?.capacity?.storage === "2Gi");
    const request = env.mock.calls("ControllerExpandVolume").at(-1)?.request as ControllerExpandVolumeRequest;
    assert.deepEqual(Object.keys(request.secrets), ["password"]);
    await resizer.stop();
    await env.stop();
  });
});
