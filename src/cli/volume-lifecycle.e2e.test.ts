/**
 * The rest of a storage user's day, through kubectl against one `kvol up --nodes 2 --speed 60
 * --csi-capacity-limit 1Gi` (simulated nodes): a WaitForFirstConsumer claim of
 * hostpath.csi.kvol.io goes to the only node with capacity and one bigger than the pool is not
 * scheduled; a generic ephemeral volume and a CSI inline volume; a snapshot of a claim, a claim
 * restored from it and a clone, each Bound and mounted by a Running pod. The nodes `kvol up`
 * simulates run no processes (no exec, nothing writes), so the bytes of a restore are checked in
 * the driver's tests and on a real node (snapshot-real-cluster.e2e.test.ts). Runs under CI=true or
 * with KVOL_E2E=1.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { suiteSkip } from "../testing/requirements.ts";
import { kubectlAgainst } from "./testing/kubectl-against.ts";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { waitFor } from "./testing/wait-for.ts";

/** Generous: the machine is shared, and a loaded one is slow (a wait's patience is not a performance claim). */
const startTimeoutMs = 120_000;
const waitTimeoutMs = 180_000;
const commandTimeoutMs = 60_000;
const caseTimeoutMs = 400_000;
const underCi = process.env.CI === "true";

function skipReason(): string | undefined {
  if (!underCi && process.env.KVOL_E2E !== "1") return "starts kvol up; set KVOL_E2E=1 to run it";
  const kubectl = spawnSync("sh", ["-c", "command -v kubectl"], { encoding: "utf8" }).stdout.trim();
  if (kubectl === "") return "no kubectl on the PATH (install kubernetes-client)";
  return undefined;
}

const classes = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: hostpath.csi.kvol.io
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshotClass
metadata: {name: local-snapshots}
driver: hostpath.csi.kvol.io
deletionPolicy: Delete
`;

function claim(name: string, size: string, dataSource = ""): string {
  return `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ${name}}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  resources: {requests: {storage: ${size}}}
${dataSource}`;
}

function pod(name: string, volume: string): string {
  return `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox
    command: ["sleep", "3600"]
    volumeMounts: [{name: data, mountPath: /data}]
  volumes:
  - name: data
${volume}`;
}

const claimVolume = (claimName: string) => `    persistentVolumeClaim: {claimName: ${claimName}}\n`;

interface Item {
  metadata?: { name?: string; finalizers?: string[] };
  spec?: { nodeName?: string };
  status?: { phase?: string; readyToUse?: boolean };
}

describe("the volume lifecycle beyond provisioning, through kubectl", {
  skip: suiteSkip("the volume lifecycle beyond provisioning, through kubectl", skipReason()),
}, () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-lifecycle-"));
  let up: KvolProcess | undefined;
  let kubeconfig = "";
  after(async () => {
    await up?.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  const { kubectl, kubectlOk } = kubectlAgainst(() => kubeconfig, commandTimeoutMs);

  async function get(kind: string, name: string): Promise<Item | undefined> {
    const run = await kubectl(["get", kind, name, "-o", "json"]);
    return run.status === 0 ? (JSON.parse(run.stdout) as Item) : undefined;
  }

  const running = (name: string) =>
    waitFor(
      `pod ${name} Running`,
      async () => ((await get("pod", name))?.status?.phase === "Running" ? true : undefined),
      waitTimeoutMs,
    );
  const bound = (name: string) =>
    waitFor(
      `claim ${name} Bound`,
      async () => ((await get("pvc", name))?.status?.phase === "Bound" ? true : undefined),
      waitTimeoutMs,
    );

  it("starts kvol up --nodes 2 --speed 60 --csi-capacity-limit 1Gi", { timeout: caseTimeoutMs }, async () => {
    up = new KvolProcess([
      "up",
      "--nodes",
      "2",
      "--speed",
      "60",
      "--csi-capacity-limit",
      "1Gi",
      "--port",
      "0",
      "--data-dir",
      dir,
    ]);
    kubeconfig = (await startedCluster(up, startTimeoutMs)).kubeconfigPath;
    await up.waitForOutput(/Ready: 2 node\(s\)/, startTimeoutMs);
    await kubectlOk(["apply", "-f", "-"], classes);
  });

  it("schedules a WaitForFirstConsumer claim to the node with capacity, and no claim bigger than the pool", {
    timeout: caseTimeoutMs,
  }, async () => {
    await kubectlOk(["apply", "-f", "-"], `${claim("data", "64Mi")}---\n${pod("writer", claimVolume("data"))}`);
    await running("writer");
    assert.equal(
      (await get("pod", "writer"))?.spec?.nodeName,
      "node-1",
      "hostpath's controller and its pool are on node-1",
    );
    const capacities = await kubectlOk([
      "get",
      "csistoragecapacities",
      "-n",
      "kube-system",
      "-o",
      'jsonpath={range .items[*]}{.nodeTopology.matchLabels.topology\\.hostpath\\.csi\\.kvol\\.io/node}={.capacity}{"\\n"}{end}',
    ]);
    assert.match(capacities, /^node-2=0$/m, capacities);

    await kubectlOk(["apply", "-f", "-"], `${claim("huge", "2Gi")}---\n${pod("huge-user", claimVolume("huge"))}`);
    const message = await waitFor(
      "a FailedScheduling event of huge-user",
      async () => {
        const run = await kubectl(["get", "events", "--field-selector", "involvedObject.name=huge-user", "-o", "json"]);
        if (run.status !== 0) return undefined;
        const events = JSON.parse(run.stdout) as { items: { reason?: string; message?: string }[] };
        return events.items.find((event) => event.reason === "FailedScheduling")?.message;
      },
      waitTimeoutMs,
    );
    assert.match(message, /0\/2 nodes are available: .*2 node\(s\) did not have enough free storage/);
    assert.equal((await get("pvc", "huge"))?.status?.phase, "Pending");
    await kubectlOk(["delete", "pod", "huge-user", "--wait=false"]);
    await kubectlOk(["delete", "pvc", "huge", "--wait=false"]);
  });

  it("runs a pod with a generic ephemeral volume and one with a CSI inline volume", {
    timeout: caseTimeoutMs,
  }, async () => {
    const ephemeral = `    ephemeral:
      volumeClaimTemplate:
        spec:
          accessModes: [ReadWriteOnce]
          storageClassName: local
          resources: {requests: {storage: 16Mi}}
`;
    const inline = "    csi: {driver: hostpath.csi.kvol.io}\n";
    await kubectlOk(["apply", "-f", "-"], `${pod("with-ephemeral", ephemeral)}---\n${pod("with-inline", inline)}`);
    await running("with-ephemeral");
    await running("with-inline");
    await bound("with-ephemeral-data");
    await kubectlOk(["delete", "pod", "with-ephemeral", "--wait=true", "--timeout=180s"]);
    await waitFor(
      "the ephemeral claim deleted with its pod",
      async () => ((await kubectl(["get", "pvc", "with-ephemeral-data"])).status !== 0 ? true : undefined),
      waitTimeoutMs,
    );
  });

  it("snapshots a hostpath claim, restores it into a new claim and clones it", { timeout: caseTimeoutMs }, async () => {
    await kubectlOk(
      ["apply", "-f", "-"],
      `apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshot
metadata: {name: data-snap}
spec:
  volumeSnapshotClassName: local-snapshots
  source: {persistentVolumeClaimName: data}
`,
    );
    await waitFor(
      "data-snap ready to use",
      async () => ((await get("volumesnapshot", "data-snap"))?.status?.readyToUse === true ? true : undefined),
      waitTimeoutMs,
    );
    const restore = "  dataSource: {apiGroup: snapshot.storage.k8s.io, kind: VolumeSnapshot, name: data-snap}\n";
    const clone = "  dataSource: {kind: PersistentVolumeClaim, name: data}\n";
    await kubectlOk(
      ["apply", "-f", "-"],
      [
        claim("restored", "64Mi", restore),
        pod("restore-reader", claimVolume("restored")),
        claim("cloned", "64Mi", clone),
        pod("clone-reader", claimVolume("cloned")),
      ].join("---\n"),
    );
    await running("restore-reader");
    await running("clone-reader");
    await bound("restored");
    await bound("cloned");
    const source = await get("pvc", "data");
    assert.ok(
      source?.metadata?.finalizers?.includes("provisioner.storage.kubernetes.io/cloning-protection"),
      JSON.stringify(source?.metadata?.finalizers),
    );
    const snapshots = await kubectlOk(["get", "volumesnapshot", "data-snap"]);
    assert.match(snapshots, /^data-snap\s+true\s+data\s+64Mi\s+local-snapshots\s+snapcontent-/m);
  });
});
