import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { commandLine } from "../../volume/testing/recording-host.ts";
import { boundSimDiskClaim, podUsing, testNamespace, volumeManagerEnv } from "./testing/volume-manager-env.ts";
import { finishPodSync, mountPointsUnder, readText, startPodSync, syncPodAndWait } from "./testing/wait.ts";

/** Kubernetes' podAttachAndMountRetryInterval: 300 ms. */
const podAttachAndMountRetryIntervalMs = 300;
/** Kubernetes' kubelet syncFrequency: 1 min. */
const kubeletSyncFrequencyMs = 60_000;

const podsDir = "/var/lib/kubelet/pods";

describe("KubeletVolumeManager: non-attachable volumes", () => {
  it("mounts an emptyDir for a new pod and removes it after the pod is gone", async () => {
    const env = await volumeManagerEnv();
    const pod = await env.addPod(podUsing("web", [{ volume: { name: "scratch", emptyDir: {} } }]));
    const uid = pod.metadata?.uid ?? "";
    const outcome = await syncPodAndWait(env, pod);
    assert.equal(outcome.error, undefined);
    // Populator at 100 ms, VerifyControllerAttachedVolume at 200 ms, MountVolume at 300 ms: the
    // 300 ms poll runs just before the mount lands, the 600 ms one sees it.
    assert.equal(outcome.elapsedMs, 600);
    const dir = `${podsDir}/${uid}/volumes/kubernetes.io~empty-dir/scratch`;
    assert.equal((await env.host.stat(dir)).type, "directory");
    assert.deepEqual(env.manager.getMountedVolumesForPod(uid), new Map([["scratch", dir]]));
    assert.equal(await env.manager.podVolumesExist(uid), true);

    env.pods.remove(uid);
    await env.clock.advanceBy(500);
    await assert.rejects(env.host.stat(dir), /no such file or directory/);
    assert.equal(await env.manager.podVolumesExist(uid), false);
    assert.deepEqual(env.manager.getMountedVolumesForPod(uid), new Map());
  });

  it("skips volumes no container uses and waits only for the used ones", async () => {
    const env = await volumeManagerEnv();
    const template = podUsing("web", [{ volume: { name: "used", emptyDir: {} } }]);
    template.spec?.volumes?.push({ name: "unused", emptyDir: {} });
    const pod = await env.addPod(template);
    assert.equal((await syncPodAndWait(env, pod)).error, undefined);
    const uid = pod.metadata?.uid ?? "";
    assert.deepEqual(await env.host.readdir(`${podsDir}/${uid}/volumes/kubernetes.io~empty-dir`), ["used"]);
  });

  it("reports a missing secret as FailedMount and mounts within one backoff step of its creation", async () => {
    const env = await volumeManagerEnv();
    const pod = await env.addPod(podUsing("api", [{ volume: { name: "creds", secret: { secretName: "db-pass" } } }]));
    const uid = pod.metadata?.uid ?? "";
    const sync = startPodSync(env, pod);
    await env.clock.advanceBy(10_000);
    const failures = (await env.events()).filter((event) => event.reason === "FailedMount");
    assert.equal(failures.length, 1, "repeats are counted on one event");
    const [failure] = failures;
    assert.equal(failure?.type, "Warning");
    assert.equal(failure?.message, 'MountVolume.SetUp failed for volume "creds" : secret "db-pass" not found');
    assert.equal(failure?.source?.component, "kubelet");
    assert.equal(failure?.source?.host, "node-1");
    assert.equal(failure?.involvedObject.uid, uid);
    // Attempts at ~0.1 s, then after 0.5, 1, 2 and 4 s of backoff: five failures, the next in 8 s.
    assert.equal(failure?.count, 5);

    const createdAt = env.clock.now();
    await env.client.secrets.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { namespace: testNamespace, name: "db-pass" },
      data: { password: Buffer.from("s3cret").toString("base64") },
    });
    const outcome = await finishPodSync(env, sync, 20_000);
    assert.equal(outcome.error, undefined);
    const mountedAfterCreationMs = sync.started + outcome.elapsedMs - createdAt;
    assert.ok(
      mountedAfterCreationMs > 0 && mountedAfterCreationMs <= 8_000 + podAttachAndMountRetryIntervalMs,
      `mounted ${mountedAfterCreationMs} ms after the secret was created`,
    );
    const dir = `${podsDir}/${uid}/volumes/kubernetes.io~secret/creds`;
    assert.equal(await readText(env, `${dir}/password`), "s3cret");
    assert.deepEqual(await mountPointsUnder(env, dir), [dir], "secrets live on tmpfs");
  });

  it("brings a configMap update into the pod atomically at the next pod sync", async () => {
    const env = await volumeManagerEnv();
    await env.client.configMaps.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { namespace: testNamespace, name: "settings" },
      data: { mode: "blue" },
    });
    const pod = await env.addPod(podUsing("web", [{ volume: { name: "cfg", configMap: { name: "settings" } } }]));
    assert.equal((await syncPodAndWait(env, pod)).error, undefined);
    const file = `${podsDir}/${pod.metadata?.uid}/volumes/kubernetes.io~configmap/cfg/mode`;
    assert.equal(await readText(env, file), "blue");

    await env.client.configMaps.mutate(testNamespace, "settings", (draft) => {
      draft.data = { mode: "green-with-a-longer-value" };
    });
    // Nothing changes between pod syncs: the refresh rides on the periodic resync.
    await env.clock.advanceBy(kubeletSyncFrequencyMs - 1_000);
    assert.equal(await readText(env, file), "blue");

    // A reader polls the file every millisecond while the sync rewrites it.
    const seen: string[] = [];
    const reader = env.clock.every(1, async () => {
      try {
        seen.push(await readText(env, file));
      } catch (err) {
        seen.push(`error: ${(err as Error).message}`);
      }
    });
    await env.clock.advanceBy(900);
    assert.equal((await syncPodAndWait(env, pod)).error, undefined);
    await env.clock.advanceBy(300);
    reader.cancel();
    assert.equal(await readText(env, file), "green-with-a-longer-value");
    assert.deepEqual([...new Set(seen)], ["blue", "green-with-a-longer-value"], "never a partial or missing file");
  });

  it("mounts NFS per pod and unmounts it when the pod goes", async () => {
    const env = await volumeManagerEnv();
    env.world.addNfsServer("10.20.172.211").addExport("/exports/shared");
    const pod = await env.addPod(
      podUsing("reader", [{ volume: { name: "shared", nfs: { server: "10.20.172.211", path: "/exports/shared" } } }]),
    );
    const uid = pod.metadata?.uid ?? "";
    assert.equal((await syncPodAndWait(env, pod)).error, undefined);
    const dir = `${podsDir}/${uid}/volumes/kubernetes.io~nfs/shared`;
    assert.deepEqual(await mountPointsUnder(env, `${podsDir}/${uid}`), [dir]);
    assert.ok(
      env.commands.some((command) => commandLine(command).includes(`-t nfs 10.20.172.211:/exports/shared ${dir}`)),
    );

    env.pods.remove(uid);
    await env.clock.advanceBy(500);
    assert.deepEqual(await mountPointsUnder(env, `${podsDir}/${uid}`), []);
    assert.equal(await env.manager.podVolumesExist(uid), false);
  });
});

describe("KubeletVolumeManager: WaitForAttachAndMount", () => {
  it("gives up on a volume that is never attached after exactly 2 min 3 s, naming it", async () => {
    const env = await volumeManagerEnv();
    await boundSimDiskClaim(env, "data", "disk-1");
    const pod = await env.addPod(
      podUsing("db", [{ volume: { name: "data", persistentVolumeClaim: { claimName: "data" } } }]),
    );
    const outcome = await syncPodAndWait(env, pod, 130_000);
    assert.equal(outcome.elapsedMs, 123_000);
    assert.equal(
      outcome.error?.message,
      "unmounted volumes=[data], unattached volumes=[data], failed to process volumes=[]: timed out waiting for the condition",
    );
  });

  it("fails early with the populator's error for an unbound claim", async () => {
    const env = await volumeManagerEnv();
    await env.client.persistentVolumeClaims.create({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { namespace: testNamespace, name: "pending" },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    });
    const pod = await env.addPod(
      podUsing("db", [
        { volume: { name: "data", persistentVolumeClaim: { claimName: "pending" } } },
        { volume: { name: "scratch", emptyDir: {} } },
      ]),
    );
    const outcome = await syncPodAndWait(env, pod);
    assert.ok(outcome.elapsedMs <= 300, `failed after ${outcome.elapsedMs} ms`);
    assert.equal(
      outcome.error?.message,
      "unmounted volumes=[data scratch], unattached volumes=[], failed to process volumes=[data]: " +
        "error processing PVC default/pending: PVC is not bound",
    );
  });

  it("resolves at once for a pod whose containers use no volume", async () => {
    const env = await volumeManagerEnv();
    const pod = await env.addPod(podUsing("plain", []));
    assert.deepEqual(await syncPodAndWait(env, pod), { elapsedMs: 0 });
  });
});

describe("KubeletVolumeManager: cost of an idle node", () => {
  it("skips reconciler passes that would find nothing to do, and wakes on the next change", async () => {
    const env = await volumeManagerEnv();
    const pod = await env.addPod(podUsing("web", [{ volume: { name: "scratch", emptyDir: {} } }]));
    assert.equal((await syncPodAndWait(env, pod)).error, undefined);
    await env.clock.advanceBy(1_000);
    // The reconciler's unmount step scans every mount of the node; count those scans.
    const asw = env.manager.asw;
    const original = asw.getAllMountedVolumes.bind(asw);
    let scans = 0;
    asw.getAllMountedVolumes = () => {
      scans++;
      return original();
    };
    await env.clock.advanceBy(10_000);
    assert.equal(scans, 0, "100 idle passes scanned nothing");

    const other = await env.addPod(podUsing("api", [{ volume: { name: "scratch", emptyDir: {} } }]));
    assert.equal((await syncPodAndWait(env, other)).error, undefined);
    assert.ok(scans > 0);
  });
});
