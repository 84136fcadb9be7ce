/**
 * kvol's node fencing end to end on the simulator (docs/fencing.md): a partitioned node that keeps
 * running is fenced before its RBD volume moves, and stays fenced after the partition heals until
 * its kubelet can tear its stale mounts down (the blocklisted image answers EIO, so only a reboot
 * lets it); the single-writer invariant sees two writers the moment a fence is lifted too early;
 * a StorageClass can ask for fencing on its own; a volume no fencer covers, or an API server too slow
 * to tell a dead node from a slow one, leaves the node unfenced with the reason recorded.
 * The powered-off case with its 30 s figure is scenario 024 (built-in scenario tests).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exploreScenario } from "./explore/explore.ts";
import { scenarioRuns } from "./explore/scenario-runs.ts";
import { faultNamed } from "./faults/catalogue.ts";
import { runScenario, type ScenarioResult } from "./runner/run-scenario.ts";
import { loadScenarioFile, parseScenario } from "./scenario/load.ts";

const scenariosDir = new URL("../../scenarios/", import.meta.url).pathname;

/** The sock-shop user-db Deployment on an RBD RWO image; node-b joins at 30s, so the pod starts on node-a. */
function rbdScenario(options: { cluster?: string; timeline: string; expect: string; until?: string }): string {
  return `
name: fencing test
seed: 7
until: ${options.until ?? "4m"}
cluster:
${options.cluster ?? "  fenceAfter: 15s"}
  nodes:
    - { name: node-a, zone: zone-1 }
  storage:
    rbd:
      images:
        - { pool: sock_shop, image: user-pv, size: 1Gi }
timeline:
  - at: 0s
    apply: { file: manifests/sock-shop-user-db.yaml }
  - at: 30s
    addNode: { name: node-b, zone: zone-1 }
${options.timeline}
expect:
${options.expect}
`;
}

async function play(text: string): Promise<ScenarioResult> {
  return runScenario(parseScenario(text, { file: `${scenariosDir}fencing-test.yaml` }));
}

function problemsOf(result: ScenarioResult): string[] {
  const problems = result.verdicts
    .filter((verdict) => verdict.status !== "passed")
    .map((verdict) => `${verdict.status}: ${verdict.expectation} — ${verdict.detail}`);
  for (const violation of result.violation?.violations ?? [])
    problems.push(`${violation.invariant}: ${violation.message}`);
  return problems;
}

const partitionAt1m = `
  - at: 1m
    fault: { name: node-partition, params: { node: node-a }, healAfter: 2m }
    note: node-a keeps running, cut off from the API server`;

describe("node fencing on the simulator", () => {
  it("fences a partitioned node before its RBD volume moves, and unfences it only once its kubelet tore the stale mount down", async () => {
    const result = await play(
      rbdScenario({
        until: "5m",
        timeline: `${partitionAt1m}
  - at: 3m30s
    fault: { name: node-crash, params: { node: node-a } }
    note: node-a is rebooted, its kernel's mounts and RBD mappings gone`,
        expect: `
  - eventually: node node-a fenced is True and node node-a taint is node.kubernetes.io/out-of-service
    after: 1m
    within: 16s
  - eventually: pod sock-shop/user-db-* node is node-b and pod sock-shop/user-db-* phase is Running
    after: 1m
    within: 30s
  - eventually: node node-a ready is True
    after: 3m
    within: 20s
  - never: node node-a fenced is False
    after: 1m16s
    until: 3m30s
  - eventually: node node-a fenced is False and not node node-a taint is node.kubernetes.io/out-of-service
    after: 3m30s
    within: 1m
  - event:
      reason: NodeUnfenced
      object: node node-a
      message: its kubelet has torn down every stale mount
      after: 3m30s
      within: 1m
  - final: mount of pod sock-shop/user-db-* volume data-volume on node-b is healthy`,
      }),
    );
    assert.deepEqual(problemsOf(result), []);
    const fenced = result.timeline.find((entry) => entry.message.includes("NodeFenced"));
    assert.match(
      fenced?.message ?? "",
      /Node node-a has not reported for 1\ds; its access to kubernetes\.io\/rbd is fenced/,
    );
  });

  it("sees two writers when the fence is lifted while the partitioned node still holds its mount", async () => {
    const result = await play(
      rbdScenario({
        timeline: `${partitionAt1m}
  - at: 1m50s
    unfence: node-a
    note: "lifted too early: node-a's kubelet has not torn its mount down"`,
        expect: `
  - eventually: pod sock-shop/user-db-* node is node-b and pod sock-shop/user-db-* phase is Running
    after: 1m
    within: 30s`,
      }),
    );
    assert.equal(result.violation?.atMs, 110_000);
    assert.deepEqual(
      result.violation?.violations
        .filter((violation) => violation.invariant === "single-writer")
        .map((violation) => violation.message),
      [
        "rbd/sock_shop/user-pv has 2 writers (node-a, node-b): each has it mounted read-write and the storage accepts its writes, but its PersistentVolume allows ReadWriteOnce only",
      ],
    );
  });

  it("keeps a node fenced while it still maps the image after a kubelet restart forgot the stale mount", async () => {
    // Found by `kvol sim explore` (scenario 025, seed 6824): the restarted kubelet reports no volume
    // in use, but node-a's kernel still has the RBD image mapped and mounted.
    const result = await play(
      rbdScenario({
        until: "2m",
        timeline: `
  - at: 40s
    fault: { name: node-partition, params: { node: node-a }, healAfter: 13s }
  - at: 1m20s
    fault: { name: kubelet-restart, params: { node: node-a } }`,
        expect: `
  - eventually: node node-a fenced is True
    after: 40s
    within: 20s
  - eventually: node node-a ready is True and node node-a volumesInUse count is 0
    after: 1m20s
    within: 30s
  - never: node node-a fenced is False
    after: 1m`,
      }),
    );
    assert.deepEqual(problemsOf(result), []);
  });

  it("fences for a StorageClass that asks, without --fence-after, and not before its grace", async () => {
    const result = await play(`
name: per-class fencing
seed: 5
until: 2m
cluster:
  nodes:
    - { name: node-a, zone: zone-1 }
  csiDrivers:
    - name: disk.csi.kvol.io
  storageClasses:
    - metadata: { name: fenced, annotations: { fencing.kvol.io/fence-after: 25s } }
      provisioner: disk.csi.kvol.io
      volumeBindingMode: WaitForFirstConsumer
timeline:
  - at: 0s
    apply: |
      apiVersion: v1
      kind: PersistentVolumeClaim
      metadata: { name: data }
      spec: { accessModes: [ReadWriteOnce], storageClassName: fenced, resources: { requests: { storage: 1Gi } } }
      ---
      apiVersion: v1
      kind: Pod
      metadata: { name: app }
      spec:
        containers: [{ name: app, image: busybox:1.36, volumeMounts: [{ name: data, mountPath: /data }] }]
        volumes: [{ name: data, persistentVolumeClaim: { claimName: data } }]
  - at: 30s
    addNode: { name: node-b, zone: zone-1 }
  - at: 40s
    fault: { name: node-power-off, params: { node: node-a } }
expect:
  - never: node node-a fenced is True
    until: 1m4s
  - eventually: node node-a fenced is True
    after: 40s
    within: 26s
  - event:
      reason: NodeFenced
      object: node node-a
      message: has not reported for 2
      after: 40s
      within: 26s
`);
    assert.deepEqual(problemsOf(result), []);
  });

  it("does not fence a node holding a volume no fencer covers, and says why on the Node", async () => {
    const result = await play(`
name: nothing covers NFS
seed: 3
until: 2m
cluster:
  fenceAfter: 15s
  nodes:
    - { name: node-a, zone: zone-1 }
  storage:
    nfs:
      - server: 10.0.9.1
        exports: [{ path: /exports/reports }]
timeline:
  - at: 0s
    apply: |
      apiVersion: v1
      kind: PersistentVolume
      metadata: { name: reports }
      spec:
        capacity: { storage: 1Gi }
        accessModes: [ReadWriteOnce]
        nfs: { server: 10.0.9.1, path: /exports/reports }
      ---
      apiVersion: v1
      kind: PersistentVolumeClaim
      metadata: { name: reports }
      spec: { accessModes: [ReadWriteOnce], storageClassName: "", volumeName: reports, resources: { requests: { storage: 1Gi } } }
      ---
      apiVersion: v1
      kind: Pod
      metadata: { name: reporter }
      spec:
        containers: [{ name: app, image: busybox:1.36, volumeMounts: [{ name: reports, mountPath: /reports }] }]
        volumes: [{ name: reports, persistentVolumeClaim: { claimName: reports } }]
  - at: 30s
    fault: { name: node-power-off, params: { node: node-a } }
expect:
  - event:
      reason: FencingRefused
      type: Warning
      object: node node-a
      message: "Node node-a has stopped reporting but was not fenced: no fencer covers PersistentVolume reports (nfs)"
      after: 30s
      within: 20s
  - eventually: node node-a fenced is False
    after: 30s
    within: 20s
  - never: node node-a taint is node.kubernetes.io/out-of-service
`);
    assert.deepEqual(problemsOf(result), []);
  });

  it("does not fence a silent node while the API server is too slow to tell a dead node from a slow one", async () => {
    const result = await play(
      rbdScenario({
        until: "2m",
        timeline: `
  - at: 40s
    fault: { name: api-latency, params: { delay: 15s } }
    note: every request takes 15 s longer; Lease renewals still come every 10 s, late
  - at: 40s
    fault: { name: node-partition, params: { node: node-a } }
    note: node-a falls silent while the API server is slow`,
        expect: `
  - event:
      reason: FencingRefused
      object: node node-a
      message: the API server took 15s to answer, so the node may only be slow to report
      after: 55s
      within: 1m
  - never: node node-a fenced is True
  - never: node node-b fenced is True`,
      }),
    );
    assert.deepEqual(problemsOf(result), []);
  });

  // A few seeds here; `KVOL_FENCE_EXPLORE_SEEDS=10000` (or `kvol sim explore`, docs/fencing.md) for the full run.
  const exploreSeeds = Number(process.env.KVOL_FENCE_EXPLORE_SEEDS ?? "2");
  it(`finds no two writers in ${exploreSeeds} random fault schedule(s) of scenario 025`, async () => {
    const file = "025-fenced-failover-random-faults.yaml";
    const faults = [
      "node-power-off",
      "node-partition",
      "node-crash",
      "kubelet-restart",
      "api-latency",
      "controller-manager-restart",
    ];
    const result = await exploreScenario(scenarioRuns(loadScenarioFile(`${scenariosDir}${file}`)), {
      file: `scenarios/${file}`,
      seeds: exploreSeeds,
      catalogue: faults.map(faultNamed),
    });
    assert.equal(result.failure, undefined, result.failure?.replayCommand);
    assert.equal(result.seedsRun, exploreSeeds);
  });
});
