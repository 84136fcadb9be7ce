import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { newTestApi } from "../../../api/client/testing/test-api.ts";
import { ActualStateOfWorld } from "../cache/actual-state-of-world.ts";
import { DesiredStateOfWorld } from "../cache/desired-state-of-world.ts";
import { inTreePluginManager } from "../testing/test-plugins.ts";
import { FakePods, podUsing } from "../testing/volume-manager-env.ts";
import { DesiredStateOfWorldPopulator } from "./desired-state-of-world-populator.ts";

async function populator(options: { sourcesReady?: () => boolean } = {}) {
  const api = newTestApi();
  const plugins = await inTreePluginManager();
  const dsw = new DesiredStateOfWorld(plugins);
  const asw = new ActualStateOfWorld("node-1", plugins);
  const pods = new FakePods();
  const instance = new DesiredStateOfWorldPopulator({
    clock: api.clock,
    logger: api.logger,
    loopPeriodMs: 100,
    client: api.client,
    plugins,
    podManager: pods,
    podStateProvider: pods,
    sourcesReady: { allReady: options.sourcesReady ?? (() => true) },
    dsw,
    asw,
  });
  return { api, dsw, asw, pods, populator: instance };
}

function withUid(pod: Pod, uid: string): Pod {
  return { ...pod, metadata: { ...pod.metadata, uid } };
}

const scratchPod = (uid: string) => withUid(podUsing(`p-${uid}`, [{ volume: { name: "tmp", emptyDir: {} } }]), uid);
const scratchVolume = (uid: string) => `kubernetes.io/empty-dir/${uid}-tmp`;

describe("DesiredStateOfWorldPopulator", () => {
  it("reports HasAddedPods only after a pass that started with every source ready", async () => {
    let ready = false;
    const { populator: p } = await populator({ sourcesReady: () => ready });
    await p.pass();
    assert.equal(p.hasAddedPods(), false);
    ready = true;
    await p.pass();
    assert.equal(p.hasAddedPods(), true);
  });

  it("first runs its loop one period after start, then every period", async () => {
    const { api, dsw, pods, populator: p } = await populator();
    pods.add(scratchPod("a"));
    p.run();
    await api.clock.advanceBy(99);
    assert.equal(dsw.volumeExists(scratchVolume("a")), false);
    await api.clock.advanceBy(1);
    assert.equal(dsw.volumeExists(scratchVolume("a")), true);
    pods.add(scratchPod("b"));
    await api.clock.advanceBy(100);
    assert.equal(dsw.volumeExists(scratchVolume("b")), true);
    await p.stop();
  });

  it("adds no volumes for a pod whose containers are terminating once the first pass is done", async () => {
    const { dsw, pods, populator: p } = await populator();
    await p.pass();
    pods.add(scratchPod("a"));
    pods.terminating.add("a");
    await p.pass();
    assert.equal(dsw.volumeExists(scratchVolume("a")), false);
  });

  it("keeps a deleted pod's volumes while its containers run, removes them once they stopped", async () => {
    const { dsw, pods, populator: p } = await populator();
    pods.add(scratchPod("a"));
    await p.pass();
    pods.forget("a");
    pods.podsSynced = false;
    await p.pass();
    assert.equal(dsw.volumeExists(scratchVolume("a")), true, "containers may still run");
    pods.runtimeRemoved.add("a");
    await p.pass();
    assert.equal(dsw.volumeExists(scratchVolume("a")), false);
  });

  it("removes a terminated pod's mounted volume, but waits for a mount still in flight to land", async () => {
    const { dsw, asw, pods, populator: p } = await populator();
    pods.add(scratchPod("a"));
    await p.pass();
    const volume = dsw.getVolumesToMount()[0];
    assert.ok(volume !== undefined);
    pods.runtimeRemoved.add("a");
    await p.pass();
    assert.equal(dsw.volumeExists(volume.volumeName), true, "not mounted yet: a mount may be in flight");
    asw.markVolumeAsAttached(volume.volumeName, volume.volumeSpec, "node-1", "");
    asw.markVolumeAsMounted({ ...volume, podUID: "a", volumeMountState: "VolumeMounted" });
    await p.pass();
    assert.equal(dsw.volumeExists(volume.volumeName), false, "mounted: remove it so it gets unmounted");
  });

  it("retries a new pod's failing volume every pass, but a re-synced pod's only at its next sync", async () => {
    const { api, dsw, pods, populator: p } = await populator();
    const pod = withUid(
      podUsing("db", [{ volume: { name: "data", persistentVolumeClaim: { claimName: "data" } } }]),
      "a",
    );
    pods.add(pod);
    const claimGets = () => api.client.calls.count("get", "persistentvolumeclaims");
    await p.pass();
    await p.pass();
    assert.equal(claimGets(), 2, "retried while never processed");
    assert.deepEqual(dsw.popPodErrors("a"), [
      'error processing PVC default/data: failed to fetch PVC from API server: persistentvolumeclaims "data" not found',
    ]);

    const pvc = await api.client.persistentVolumeClaims.create({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { namespace: "default", name: "data" },
      spec: { accessModes: ["ReadWriteMany"], volumeName: "pv-1", resources: { requests: { storage: "1Gi" } } },
    });
    await api.client.persistentVolumeClaims.mutate(
      "default",
      "data",
      (draft) => {
        draft.status = { phase: "Bound" };
      },
      { subresource: "status" },
    );
    await api.client.persistentVolumes.create({
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: "pv-1" },
      spec: {
        accessModes: ["ReadWriteMany"],
        capacity: { storage: "1Gi" },
        nfs: { server: "10.0.0.1", path: "/x" },
        claimRef: { namespace: "default", name: "data", uid: pvc.metadata?.uid ?? "" },
      },
    });
    await p.pass();
    assert.equal(dsw.volumeExistsWithSpecName("a", "pv-1"), true);

    await api.client.persistentVolumeClaims.delete("default", "data");
    p.reprocessPod("a");
    const before = claimGets();
    await p.pass();
    await p.pass();
    assert.equal(claimGets(), before + 1, "a pod seen before is not retried until its next sync");
    assert.equal(dsw.volumeExistsWithSpecName("a", "pv-1"), true, "what was added stays");
    p.reprocessPod("a");
    await p.pass();
    assert.equal(claimGets(), before + 2);
  });
});
