/**
 * Snapshots, restores and clones on a real node, through kubectl: `kvol up --host linux --nodes 1`,
 * a claim on a loop-device disk of DATA/disks written by a busybox pod, a VolumeSnapshot of it
 * (disk.csi.kvol.io copies the disk's file), a claim restored from the snapshot and one cloned
 * from the claim, each read back by a pod; a restore into a claim smaller than the snapshot is
 * refused with external-provisioner's message. Needs root and kubectl (skipped with the reason
 * elsewhere; under CI=true it must run).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { probeLinuxRuntime } from "../cri/linux/runtime-requirements.ts";
import { suiteSkip } from "../testing/requirements.ts";
import { kubectlAgainst } from "./testing/kubectl-against.ts";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { waitFor } from "./testing/wait-for.ts";

const startTimeoutMs = 180_000;
const podTimeoutMs = 240_000;
const commandTimeoutMs = 90_000;
/** Per case: the machine is shared and loaded. */
const caseTimeoutMs = 600_000;

function skipReason(): string | undefined {
  if (process.getuid?.() !== 0) return "real nodes need root";
  const kubectl = spawnSync("sh", ["-c", "command -v kubectl"], { encoding: "utf8" }).stdout.trim();
  if (kubectl === "") return "no kubectl on the PATH (install kubernetes-client)";
  return undefined;
}

const snapshotClass = `apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshotClass
metadata:
  name: disk-snapclass
  annotations: {snapshot.storage.kubernetes.io/is-default-class: "true"}
driver: disk.csi.kvol.io
deletionPolicy: Delete
`;

function claim(name: string, size: string, dataSource = ""): string {
  return `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ${name}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: ${size}}}
${dataSource}`;
}

function pod(name: string, claimName: string, command: string): string {
  return `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "${command}"]
    volumeMounts: [{name: data, mountPath: /data}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: ${claimName}}}]
`;
}

const suiteTitle = "snapshots, restores and clones on a real node";

describe(suiteTitle, { skip: suiteSkip(suiteTitle, skipReason()) }, () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-snapshots-"));
  let up: KvolProcess | undefined;
  let kubeconfig = "";
  after(async () => {
    await up?.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  const { kubectl, kubectlOk, jsonOf } = kubectlAgainst(() => kubeconfig, commandTimeoutMs);

  async function fileOf(podName: string): Promise<string> {
    return waitFor(
      `/data/file in ${podName}`,
      async () => {
        const run = await kubectl(["exec", podName, "--", "cat", "/data/file"]);
        return run.status === 0 && run.stdout !== "" ? run.stdout : undefined;
      },
      podTimeoutMs,
    );
  }

  it("starts kvol up --host linux --nodes 1", { timeout: caseTimeoutMs }, async () => {
    const probe = await probeLinuxRuntime();
    if ("problems" in probe) assert.fail(probe.problems.join("; "));
    up = new KvolProcess(["up", "--host", "linux", "--nodes", "1", "--port", "0", "--data-dir", dir]);
    kubeconfig = (await startedCluster(up, startTimeoutMs)).kubeconfigPath;
    await up.waitForOutput(/Ready: 1 real node\(s\) on this machine/, startTimeoutMs);
  });

  it("writes a file, snapshots the claim, restores it into a new claim and reads the same bytes", {
    timeout: caseTimeoutMs,
  }, async () => {
    await kubectlOk(["apply", "-f", "-"], snapshotClass);
    await kubectlOk(["apply", "-f", "-"], claim("source", "64Mi"));
    await kubectlOk(
      ["apply", "-f", "-"],
      pod("writer", "source", "echo snapshot-bytes-42 > /data/file; sync; sleep 3600"),
    );
    assert.equal(await fileOf("writer"), "snapshot-bytes-42\n");
    await kubectlOk(["exec", "writer", "--", "sync"]);
    const snapshot = `apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshot
metadata: {name: source-snap}
spec:
  source: {persistentVolumeClaimName: source}
`;
    await kubectlOk(["apply", "-f", "-"], snapshot);
    await waitFor(
      "source-snap ready to use",
      async () =>
        (await jsonOf<{ status?: { readyToUse?: boolean } }>(["get", "volumesnapshot", "source-snap"]))?.status
          ?.readyToUse === true || undefined,
      podTimeoutMs,
    );
    const table = await kubectlOk(["get", "volumesnapshot", "source-snap"]);
    const [header = "", row = ""] = table.split("\n");
    assert.deepEqual(header.split(/\s+/).filter(Boolean), [
      "NAME",
      "READYTOUSE",
      "SOURCEPVC",
      "SOURCESNAPSHOTCONTENT",
      "RESTORESIZE",
      "SNAPSHOTCLASS",
      "SNAPSHOTCONTENT",
      "CREATIONTIME",
      "AGE",
    ]);
    assert.match(row, /^source-snap\s+true\s+source\s+64Mi\s+disk-snapclass\s+snapcontent-[0-9a-f-]+\s+\S+\s+\S+$/);
    const restoreSource = `  dataSource: {apiGroup: snapshot.storage.k8s.io, kind: VolumeSnapshot, name: source-snap}\n`;
    await kubectlOk(["apply", "-f", "-"], claim("restored", "128Mi", restoreSource));
    await kubectlOk(["apply", "-f", "-"], pod("restore-reader", "restored", "sleep 3600"));
    assert.equal(await fileOf("restore-reader"), "snapshot-bytes-42\n");
  });

  it("clones the claim and reads the same bytes", { timeout: caseTimeoutMs }, async () => {
    await kubectlOk(
      ["apply", "-f", "-"],
      claim("cloned", "64Mi", "  dataSource: {kind: PersistentVolumeClaim, name: source}\n"),
    );
    await kubectlOk(["apply", "-f", "-"], pod("clone-reader", "cloned", "sleep 3600"));
    assert.equal(await fileOf("clone-reader"), "snapshot-bytes-42\n");
  });

  it("refuses a restore into a claim smaller than the snapshot, as external-provisioner does", {
    timeout: caseTimeoutMs,
  }, async () => {
    const restoreSource = `  dataSourceRef: {apiGroup: snapshot.storage.k8s.io, kind: VolumeSnapshot, name: source-snap}\n`;
    await kubectlOk(["apply", "-f", "-"], claim("too-small", "16Mi", restoreSource));
    await kubectlOk(["apply", "-f", "-"], pod("too-small-reader", "too-small", "sleep 3600"));
    const message = await waitFor(
      "a ProvisioningFailed event of too-small",
      async () => {
        const events = await jsonOf<{
          items: { reason?: string; message?: string; involvedObject?: { name?: string } }[];
        }>(["get", "events"]);
        return events?.items.find(
          (event) => event.involvedObject?.name === "too-small" && event.reason === "ProvisioningFailed",
        )?.message;
      },
      podTimeoutMs,
    );
    assert.match(
      message,
      /requested volume size 16777216 is less than the size 67108864 for the source snapshot source-snap/,
    );
  });

  it("deletes the snapshot and its content once no claim is restoring from it", {
    timeout: caseTimeoutMs,
  }, async () => {
    await kubectlOk(["delete", "pod", "too-small-reader", "--wait=true", "--timeout=240s"]);
    await kubectlOk(["delete", "pvc", "too-small", "--wait=true", "--timeout=240s"]);
    await kubectlOk(["delete", "volumesnapshot", "source-snap", "--wait=true", "--timeout=240s"]);
    await waitFor(
      "no VolumeSnapshotContent left",
      async () =>
        (await jsonOf<{ items: unknown[] }>(["get", "volumesnapshotcontents"]))?.items.length === 0 ? true : undefined,
      podTimeoutMs,
    );
  });
});
