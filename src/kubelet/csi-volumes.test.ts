/**
 * CSI volumes through a real kubelet on a simulated node: a driver deployed the way its DaemonSet
 * deploys it registers through `plugins_registry/`, and pods using its volumes are staged,
 * published, unpublished and unstaged in Kubernetes' order — also when a stage times out or fails.
 * There is no attach/detach controller here, so the CSIDriver says `attachRequired: false`.
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { CsiError } from "../csi/grpc/errors.ts";
import { SimCsiDeployment } from "../volume/plugins/csi/connector/sim-csi-deployment.ts";
import {
  TestCsiNodeDriver,
  type TestCsiNodeDriverOptions,
  testCsiDriverName,
} from "../volume/plugins/csi/testing/test-csi-node-driver.ts";
import { KubeletTestEnv } from "./testing/kubelet-test-env.ts";

const driverName = testCsiDriverName;
const stagingRoot = `/var/lib/kubelet/plugins/kubernetes.io/csi/${driverName}`;

async function deployDriver(
  env: KubeletTestEnv,
  options: Omit<TestCsiNodeDriverOptions, "host"> = {},
): Promise<{ driver: TestCsiNodeDriver; deployment: SimCsiDeployment }> {
  const driver = new TestCsiNodeDriver({ ...options, host: env.host });
  const deployment = await SimCsiDeployment.start({
    host: env.host,
    clock: env.clock,
    rootDir: "/var/lib/kubelet",
    driverName,
    implementations: driver.implementations,
  });
  return { driver, deployment };
}

async function createCsiDriverObject(env: KubeletTestEnv): Promise<void> {
  await env.client.csiDrivers.create({
    apiVersion: "storage.k8s.io/v1",
    kind: "CSIDriver",
    metadata: { name: driverName },
    spec: { attachRequired: false },
  });
}

async function createBoundCsiClaim(env: KubeletTestEnv): Promise<void> {
  const claim = await env.client.persistentVolumeClaims.create({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { namespace: "default", name: "data" },
    spec: { accessModes: ["ReadWriteOnce"], volumeName: "pv-1", resources: { requests: { storage: "1Gi" } } },
  });
  await env.client.persistentVolumes.create({
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name: "pv-1" },
    spec: {
      accessModes: ["ReadWriteOnce"],
      capacity: { storage: "1Gi" },
      claimRef: { namespace: "default", name: "data", uid: claim.metadata?.uid ?? "" },
      csi: { driver: driverName, volumeHandle: "vol-1", fsType: "ext4" },
    },
  });
  await env.client.persistentVolumeClaims.mutate(
    "default",
    "data",
    (draft) => {
      draft.status = { phase: "Bound" };
    },
    { subresource: "status" },
  );
}

async function createPod(env: KubeletTestEnv): Promise<string> {
  const pod = await env.createPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "default", name: "web" },
    spec: {
      containers: [{ name: "web", image: "nginx", volumeMounts: [{ name: "data", mountPath: "/data" }] }],
      volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }],
    },
  });
  return pod.metadata?.uid ?? "";
}

/** The node RPCs the driver received, without the capability queries. */
function nodeCalls(driver: TestCsiNodeDriver): string[] {
  return driver.received.filter((method) => method.startsWith("Node") && method !== "NodeGetCapabilities");
}

describe("kubelet with a CSI driver", () => {
  const envs: KubeletTestEnv[] = [];
  afterEach(async () => {
    for (const env of envs.splice(0)) await env.stop();
  });

  async function start(): Promise<KubeletTestEnv> {
    const env = await KubeletTestEnv.start();
    envs.push(env);
    return env;
  }

  it("registers a driver whose registrar socket appears, writing the CSINode, and forgets it when it goes", async () => {
    const env = await start();
    const { deployment } = await deployDriver(env, {
      nodeId: "i-0abc",
      maxVolumesPerNode: 8,
      topology: { "topology.test.csi/zone": "z1" },
    });
    await env.runFor(1_000);
    assert.deepEqual((await env.client.csiNodes.get("", "node-1")).spec?.drivers, [
      { name: driverName, nodeID: "i-0abc", topologyKeys: ["topology.test.csi/zone"], allocatable: { count: 8 } },
    ]);
    const node = await env.client.nodes.get("", "node-1");
    assert.equal(node.metadata?.annotations?.["csi.volume.kubernetes.io/nodeid"], `{"${driverName}":"i-0abc"}`);
    assert.equal(node.metadata?.labels?.["topology.test.csi/zone"], "z1");
    assert.deepEqual(deployment.registrar.statuses, [{ pluginRegistered: true, error: "" }]);
    assert.deepEqual(env.kubelet.csiDrivers.names(), [driverName]);

    await deployment.stop();
    await env.runFor(1_000);
    assert.deepEqual((await env.client.csiNodes.get("", "node-1")).spec?.drivers, []);
    assert.deepEqual(env.kubelet.csiDrivers.names(), []);
  });

  it("stages then publishes for a pod, and unpublishes then unstages when it is deleted", async () => {
    const env = await start();
    await createCsiDriverObject(env);
    const { driver } = await deployDriver(env);
    await env.runFor(1_000);
    await createBoundCsiClaim(env);
    const uid = await createPod(env);
    await env.runUntil(async () => (await env.phase("web")) === "Running", 60_000, "pod Running");
    assert.deepEqual(nodeCalls(driver), ["NodeGetInfo", "NodeStageVolume", "NodePublishVolume"]);
    const target = `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~csi/pv-1/mount`;
    assert.ok((await env.mountPoints()).includes(target));

    await env.client.pods.delete("default", "web");
    await env.runUntil(async () => (await env.pod("web")) === undefined, 5 * 60_000, "pod deleted");
    // The pod leaves the API once its own volume directories are gone; the device is unstaged after.
    await env.runUntil(() => driver.received.includes("NodeUnstageVolume"), 60_000, "volume unstaged");
    assert.deepEqual(nodeCalls(driver).slice(3), ["NodeUnpublishVolume", "NodeUnstageVolume"]);
    assert.deepEqual(await env.mountPoints(), []);
    assert.deepEqual(await env.host.readdir(stagingRoot), [], "staging directory and vol_data.json removed");
  });

  it("retries while the driver is not registered, then mounts once it registers", async () => {
    const env = await start();
    await createCsiDriverObject(env);
    await createBoundCsiClaim(env);
    await createPod(env);
    await env.runFor(5_000);
    const expected =
      'FailedMount: MountVolume.MountDevice failed for volume "pv-1" : kubernetes.io/csi: attacher.MountDevice failed ' +
      `to create newCsiDriverClient: driver name ${driverName} not found in the list of registered CSI drivers`;
    assert.ok((await env.podEventTexts("web")).includes(expected), (await env.podEventTexts("web")).join("\n"));

    await deployDriver(env);
    await env.runUntil(async () => (await env.phase("web")) === "Running", 5 * 60_000, "pod Running");
  });

  it("a stage that times out is uncertain: deleting the pod still calls NodeUnstage", async () => {
    const env = await start();
    await createCsiDriverObject(env);
    const { driver } = await deployDriver(env);
    driver.hangNext("NodeStageVolume");
    for (let attempt = 0; attempt < 20; attempt++) {
      driver.failNext("NodeStageVolume", new CsiError("DeadlineExceeded", "context deadline exceeded"));
    }
    await env.runFor(1_000);
    await createBoundCsiClaim(env);
    await createPod(env);
    const failedStage =
      'FailedMount: MountVolume.MountDevice failed for volume "pv-1" : rpc error: code = DeadlineExceeded desc = context deadline exceeded';
    await env.runUntil(
      async () => (await env.podEventTexts("web")).includes(failedStage),
      3 * 60_000,
      "the stage timed out",
    );
    assert.ok((await env.host.readdir(stagingRoot)).length === 1, "the uncertain stage keeps its directory");

    await env.client.pods.delete("default", "web");
    await env.runUntil(async () => (await env.pod("web")) === undefined, 10 * 60_000, "pod deleted");
    await env.runUntil(() => driver.received.includes("NodeUnstageVolume"), 5 * 60_000, "volume unstaged");
    assert.ok(!nodeCalls(driver).includes("NodePublishVolume"), "never published");
    assert.equal(nodeCalls(driver).at(-1), "NodeUnstageVolume", "the possibly staged volume is unstaged");
    assert.deepEqual(await env.host.readdir(stagingRoot), []);
  });

  it("a stage that fails for good leaves nothing to unstage", async () => {
    const env = await start();
    await createCsiDriverObject(env);
    const { driver } = await deployDriver(env);
    for (let attempt = 0; attempt < 20; attempt++) {
      driver.failNext("NodeStageVolume", new CsiError("InvalidArgument", "fsType ext4 is not supported"));
    }
    await env.runFor(1_000);
    await createBoundCsiClaim(env);
    await createPod(env);
    await env.runFor(10_000);
    assert.ok(
      (await env.podEventTexts("web")).includes(
        'FailedMount: MountVolume.MountDevice failed for volume "pv-1" : rpc error: code = InvalidArgument desc = fsType ext4 is not supported',
      ),
    );
    await env.client.pods.delete("default", "web");
    await env.runUntil(async () => (await env.pod("web")) === undefined, 5 * 60_000, "pod deleted");
    await env.runFor(10_000);
    assert.ok(!nodeCalls(driver).includes("NodeUnstageVolume"), nodeCalls(driver).join(" "));
    assert.deepEqual(await env.host.readdir(stagingRoot), [], "the failed stage removed its directory");
  });

  it("rebuilds CSI volumes from vol_data.json after a restart and tears down a pod deleted meanwhile", async () => {
    const env = await start();
    await createCsiDriverObject(env);
    const { driver } = await deployDriver(env);
    await env.runFor(1_000);
    await createBoundCsiClaim(env);
    const uid = await createPod(env);
    await env.runUntil(async () => (await env.phase("web")) === "Running", 60_000, "pod Running");

    await env.stopKubelet();
    await env.client.pods.delete("default", "web");
    await env.runFor(30_000);
    const before = driver.received.length;
    await env.startKubelet();
    await env.runUntil(async () => (await env.pod("web")) === undefined, 5 * 60_000, "pod removed");
    await env.runUntil(() => driver.received.includes("NodeUnstageVolume"), 60_000, "volume unstaged");

    const afterRestart = driver.received.slice(before).filter((method) => method !== "NodeGetCapabilities");
    assert.deepEqual(
      afterRestart.filter((method) => method !== "NodeGetInfo"),
      ["NodeUnpublishVolume", "NodeUnstageVolume"],
      "the reconstructed (uncertain) mount and device are torn down",
    );
    assert.ok(afterRestart.includes("NodeGetInfo"), "the new kubelet registered the driver again");
    assert.deepEqual(await env.mountPoints(), []);
    await env.runUntil(
      async () => !(await env.host.readdir("/var/lib/kubelet/pods")).includes(uid),
      60_000,
      "the pod's directory removed",
    );
  });
});
