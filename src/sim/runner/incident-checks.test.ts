/**
 * The parts of the scenario language an incident's check needs beyond objects and Events, each
 * played on a simulated cluster: node volume lists, API write counts, kubelet log lines, fencing a
 * node's storage, and a CSI driver leaving and rejoining a node.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseScenario } from "../scenario/load.ts";
import { runScenario, type ScenarioResult } from "./run-scenario.ts";

const diskCluster = `
cluster:
  nodes: [{ name: node-a, zone: zone-1 }]
  storageClasses:
    - metadata: { name: standard }
      provisioner: kvol.io/sim-disk
      volumeBindingMode: WaitForFirstConsumer
`;

const appWithClaim = `
  - at: 0s
    apply: |
      apiVersion: v1
      kind: PersistentVolumeClaim
      metadata: { name: data-app }
      spec: { accessModes: [ReadWriteOnce], storageClassName: standard, resources: { requests: { storage: 1Gi } } }
      ---
      apiVersion: v1
      kind: Pod
      metadata: { name: app }
      spec:
        containers: [{ name: app, image: busybox, volumeMounts: [{ name: data, mountPath: /data }] }]
        volumes: [{ name: data, persistentVolumeClaim: { claimName: data-app } }]
`;

async function run(text: string): Promise<ScenarioResult> {
  return runScenario(parseScenario(text, { file: "" }));
}

/** `[status, expectation]` of every verdict, for a readable failure message. */
function statuses(result: ScenarioResult): string[][] {
  return result.verdicts.map((verdict) => [verdict.status, verdict.expectation, verdict.detail]);
}

describe("incident checks", () => {
  it("checks node.status.volumesAttached and volumesInUse, by claim and by count", async () => {
    const result = await run(`
name: node volume lists
seed: 3
until: 2m
${diskCluster}
timeline:
${appWithClaim}
  - at: 1m
    delete: pod app
expect:
  - eventually: node node-a volumesAttached contains pvc data-app and node node-a volumesInUse contains pvc data-app
    within: 40s
  - eventually: node node-a volumesAttached count is 1 and node node-a volumesInUse count is at least 1
    within: 40s
  - never: node node-a volumesAttached count is more than 1
  - eventually: node node-a volumesInUse count is 0 and node node-a volumesAttached count is 0
    after: 1m
    within: 1m
  - final: not node node-a volumesAttached contains pvc data-app
`);
    assert.deepEqual(
      statuses(result).filter(([status]) => status !== "passed"),
      [],
    );
  });

  it("counts API writes to an object, its status, or a whole kind, within a window", async () => {
    const result = await run(`
name: write counts
seed: 3
until: 1m
${diskCluster}
timeline:
${appWithClaim}
expect:
  - eventually: writes to pod app status count is at least 2
    within: 30s
  - never: writes to pod app status within 10s count is more than 6
  - eventually: writes to pods count is at least 3 and writes to pvc data-app count is at least 2
    within: 30s
  - final: writes to pod app within 10s count is 0
  - final: writes to pod app status count is more than 100
`);
    assert.deepEqual(
      result.verdicts.map((verdict) => verdict.status),
      ["passed", "passed", "passed", "passed", "failed"],
      JSON.stringify(statuses(result)),
    );
    assert.match(result.verdicts[4]?.detail ?? "", /^did not hold at the end/);
  });

  it("finds the kubelet's backoff lines in its log, on the node named, in the window", async () => {
    const result = await run(`
name: kubelet log lines
seed: 2
until: 3m
cluster:
  nodes: [{ name: node1 }, { name: node2 }]
  storage:
    nfs: [{ server: 10.20.172.211, exports: [{ path: /nfs }] }]
timeline:
  - at: 0s
    fault: { name: mount-helper-missing, params: { node: node1, helper: mount.nfs } }
  - at: 0s
    apply: |
      apiVersion: v1
      kind: Pod
      metadata: { name: nfs-app }
      spec:
        nodeName: node1
        containers: [{ name: app, image: busybox, volumeMounts: [{ name: vol1, mountPath: /data }] }]
        volumes: [{ name: vol1, nfs: { server: 10.20.172.211, path: /nfs } }]
expect:
  - log:
      component: kubelet
      node: node1
      contains: '(durationBeforeRetry 500ms). Error: MountVolume.SetUp failed for volume "vol1"'
      within: 10s
  - log: { component: kubelet, node: node1, level: error, contains: "durationBeforeRetry 2m2s", within: 3m }
  - log: { component: kubelet, node: node2, contains: "durationBeforeRetry", count: 0 }
  - log: { component: kubelet, node: node1, contains: "durationBeforeRetry 2m2s", within: 1m }
`);
    assert.deepEqual(
      result.verdicts.map((verdict) => verdict.status),
      ["passed", "passed", "passed", "failed"],
      JSON.stringify(statuses(result)),
    );
    assert.match(
      result.verdicts[0]?.detail ?? "",
      /^logged at 00:00:0\d\.\d{3}: Operation for "\{volumeName:kubernetes\.io\/nfs\//,
    );
    assert.equal(result.verdicts[3]?.detail, "no matching log line by 00:01:00.000");
  });

  it("holds a pod's mount busy by the pod's name: TearDown fails in the kubelet's log only", async () => {
    const result = await run(`
name: busy mount named by pod
seed: 3
until: 4m
${diskCluster}
timeline:
${appWithClaim}
  - at: 1m
    fault: { name: mount-busy, params: { pod: default/app, volume: data }, healAfter: 2m }
  - at: 1m
    delete: pod app
expect:
  - log:
      component: kubelet
      node: node-a
      contains: 'nodeName:}" failed. No retries permitted until'
      within: 2m
  - log: { component: kubelet, node: node-a, contains: "UnmountVolume.TearDown failed for volume", after: 1m, within: 1s }
  - event: { reason: FailedUnmount, count: 0 }
  - eventually: pod app status is Terminating
    after: 1m
    within: 1s
  - never: pod app is absent
    until: 2m59s
  - eventually: pod app is absent
    after: 3m
    within: 1m
`);
    assert.deepEqual(
      statuses(result).filter(([status]) => status !== "passed"),
      [],
    );
  });

  it("fences a node's storage: its disk I/O fails until it is unfenced", async () => {
    const result = await run(`
name: fence and unfence
seed: 3
until: 2m
${diskCluster}
timeline:
${appWithClaim}
  - at: 1m
    fence: node-a
  - at: 1m30s
    unfence: node-a
expect:
  - eventually: mount of pod app volume data on node-a is healthy
    within: 40s
  - eventually: mount of pod app volume data on node-a is corrupted
    after: 1m
    within: 1s
  - never: mount of pod app volume data on node-a is corrupted
    until: 59s
  - eventually: mount of pod app volume data on node-a is healthy
    after: 1m30s
    within: 1s
`);
    assert.deepEqual(
      statuses(result).filter(([status]) => status !== "passed"),
      [],
    );
    const fence = result.timeline.find((entry) => entry.component === "scenario" && entry.atMs === 60_000);
    assert.equal(fence?.object, "node node-a");
  });

  it("unregisters a CSI driver from one node and registers it again", async () => {
    // Without the driver the node loses its topology labels, so the PV's node affinity no longer
    // matches: the mount fails and backs off until the driver is back and the next retry is due.
    const result = await run(`
name: a CSI driver leaves a node and comes back
seed: 3
until: 3m
cluster:
  nodes: [{ name: node-a }]
  csiDrivers: [{ name: hostpath.csi.kvol.io }]
  storageClasses:
    - metadata: { name: hostpath }
      provisioner: hostpath.csi.kvol.io
      volumeBindingMode: Immediate
timeline:
  - at: 0s
    unregisterCsiDriver: { node: node-a, driver: hostpath.csi.kvol.io }
  - at: 0s
    apply: |
      apiVersion: v1
      kind: PersistentVolumeClaim
      metadata: { name: data }
      spec: { accessModes: [ReadWriteOnce], storageClassName: hostpath, resources: { requests: { storage: 1Gi } } }
      ---
      apiVersion: v1
      kind: Pod
      metadata: { name: app }
      spec:
        nodeName: node-a
        containers: [{ name: app, image: busybox, volumeMounts: [{ name: data, mountPath: /data }] }]
        volumes: [{ name: data, persistentVolumeClaim: { claimName: data } }]
  - at: 1m
    registerCsiDriver: { node: node-a, driver: hostpath.csi.kvol.io }
expect:
  - event:
      reason: FailedMount
      object: pod app
      message: "MountVolume.NodeAffinity check failed for volume"
      within: 1m
  - log: { component: kubelet, node: node-a, contains: "(durationBeforeRetry 32s)", within: 1m }
  - never: pod app phase is Running
    until: 1m
  - eventually: pod app phase is Running
    after: 1m
    within: 1m
`);
    assert.deepEqual(
      statuses(result).filter(([status]) => status !== "passed"),
      [],
    );
  });
});
