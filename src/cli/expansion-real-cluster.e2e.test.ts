/**
 * Growing a claim in use on a real node, through kubectl: `kvol up --host linux --nodes 1`, a 64Mi
 * claim of disk.csi.kvol.io (a loop-device disk) mounted by a busybox pod, its request raised to
 * 128Mi; `df` inside the pod shows the new size. On a node whose kernel lets the node plugin grow a
 * mounted ext4 (CAP_SYS_RESOURCE) the filesystem grows while the pod runs; without it (a container
 * without the capability) online resize2fs is refused with EPERM: the pod gets VolumeResizeFailed
 * naming the cause, the claim keeps 64Mi, and once the pod is deleted and created again the
 * filesystem grows before it is mounted and the new pod sees 128Mi. Needs root and kubectl
 * (skipped with the reason elsewhere; under CI=true it must run).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { probeLinuxRuntime } from "../cri/linux/runtime-requirements.ts";
import { suiteSkip } from "../testing/requirements.ts";
import { kubectlAgainst } from "./testing/kubectl-against.ts";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { waitFor } from "./testing/wait-for.ts";

const startTimeoutMs = 180_000;
/** The kubelet notices a grown claim at its next sync of the pod (every minute), then backs off. */
const resizeTimeoutMs = 300_000;
const podTimeoutMs = 240_000;
const commandTimeoutMs = 90_000;
/** Per case: the machine is shared and loaded. */
const caseTimeoutMs = 600_000;
/** CAP_SYS_RESOURCE's bit in /proc/self/status CapEff: without it the kernel refuses an online ext4 resize. */
const capSysResourceBit = 24n;

function skipReason(): string | undefined {
  if (process.getuid?.() !== 0) return "real nodes need root";
  const kubectl = spawnSync("sh", ["-c", "command -v kubectl"], { encoding: "utf8" }).stdout.trim();
  if (kubectl === "") return "no kubectl on the PATH (install kubernetes-client)";
  return undefined;
}

/** Whether this process (and so the node plugin it starts) may grow a mounted ext4. */
function canResizeOnline(): boolean {
  const line = readFileSync("/proc/self/status", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("CapEff:"));
  const mask = BigInt(`0x${line?.split(/\s+/)[1] ?? "0"}`);
  return ((mask >> capSysResourceBit) & 1n) === 1n;
}

const storageClass = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: expandable}
provisioner: disk.csi.kvol.io
volumeBindingMode: WaitForFirstConsumer
allowVolumeExpansion: true
`;

const claim = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: expandable
  resources: {requests: {storage: 64Mi}}
`;

function pod(name: string, command: string): string {
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
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
`;
}

interface ClaimJson {
  status?: { capacity?: { storage?: string }; conditions?: { type: string; message?: string }[] };
}

interface EventsJson {
  items: { reason?: string; message?: string; involvedObject?: { name?: string; kind?: string } }[];
}

const suiteTitle = "growing a claim in use on a real node";

describe(suiteTitle, { skip: suiteSkip(suiteTitle, skipReason()) }, () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-expansion-"));
  let up: KvolProcess | undefined;
  let kubeconfig = "";
  after(async () => {
    await up?.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  const { kubectl, kubectlOk, jsonOf } = kubectlAgainst(() => kubeconfig, commandTimeoutMs);

  /** The size of /data inside the pod, in KiB, as `df -k` prints it. */
  async function dfKiB(podName: string): Promise<number> {
    return waitFor(
      `df /data in ${podName}`,
      async () => {
        const run = await kubectl(["exec", podName, "--", "df", "-k", "/data"]);
        const row = run.stdout.trim().split("\n").at(-1)?.split(/\s+/) ?? [];
        const total = Number(row[1]);
        return run.status === 0 && Number.isFinite(total) && total > 0 ? total : undefined;
      },
      podTimeoutMs,
    );
  }

  async function claimCapacity(): Promise<string | undefined> {
    return (await jsonOf<ClaimJson>(["get", "pvc", "data"]))?.status?.capacity?.storage;
  }

  it("starts kvol up --host linux --nodes 1", { timeout: caseTimeoutMs }, async () => {
    const probe = await probeLinuxRuntime();
    if ("problems" in probe) assert.fail(probe.problems.join("; "));
    up = new KvolProcess(["up", "--host", "linux", "--nodes", "1", "--port", "0", "--data-dir", dir]);
    kubeconfig = (await startedCluster(up, startTimeoutMs)).kubeconfigPath;
    await up.waitForOutput(/Ready: 1 real node\(s\) on this machine/, startTimeoutMs);
  });

  it("grows a bound claim in use to 128Mi and the pod's df shows it", { timeout: 2 * caseTimeoutMs }, async () => {
    await kubectlOk(["apply", "-f", "-"], storageClass);
    await kubectlOk(["apply", "-f", "-"], claim);
    await kubectlOk(["apply", "-f", "-"], pod("writer", "echo kept > /data/file; sync; sleep 3600"));
    const before = await dfKiB("writer");
    assert.ok(before < 64 * 1024, `a 64Mi ext4 is below 64Mi: ${before} KiB`);

    await kubectlOk([
      "patch",
      "pvc",
      "data",
      "--type",
      "merge",
      "-p",
      '{"spec":{"resources":{"requests":{"storage":"128Mi"}}}}',
    ]);
    let reader = "writer";
    if (canResizeOnline()) {
      await waitFor(
        "the claim's capacity is 128Mi",
        async () => ((await claimCapacity()) === "128Mi" ? true : undefined),
        resizeTimeoutMs,
      );
    } else {
      const failure = await waitFor(
        "VolumeResizeFailed on the pod",
        async () =>
          (await jsonOf<EventsJson>(["get", "events"]))?.items.find(
            (event) => event.reason === "VolumeResizeFailed" && event.involvedObject?.name === "writer",
          )?.message,
        resizeTimeoutMs,
      );
      assert.match(
        failure,
        /^NodeExpandVolume\.NodeExpandVolume failed for volume "pvc-[^"]+" : Expander\.NodeExpand failed to expand the volume : rpc error: code = Internal desc = /,
      );
      assert.match(failure, /resize2fs: Permission denied to resize filesystem/);
      assert.match(failure, /online resize needs CAP_SYS_RESOURCE/);
      assert.equal(await claimCapacity(), "64Mi", "the claim keeps its size while the pod runs");
      const conditions = (await jsonOf<ClaimJson>(["get", "pvc", "data"]))?.status?.conditions ?? [];
      assert.ok(conditions.some((condition) => condition.type === "FileSystemResizePending"));

      await kubectlOk(["delete", "pod", "writer", "--wait=true", "--timeout=240s"]);
      await kubectlOk(["apply", "-f", "-"], pod("reader", "sleep 3600"));
      reader = "reader";
      await waitFor(
        "the claim's capacity is 128Mi",
        async () => ((await claimCapacity()) === "128Mi" ? true : undefined),
        podTimeoutMs,
      );
    }
    const grown = await dfKiB(reader);
    assert.ok(grown > 64 * 1024 && grown <= 128 * 1024, `df shows the new size: ${grown} KiB (was ${before} KiB)`);
    const conditions = (await jsonOf<ClaimJson>(["get", "pvc", "data"]))?.status?.conditions ?? [];
    assert.deepEqual(
      conditions.map((condition) => condition.type),
      [],
      "no resize condition is left",
    );
    const successes = (await jsonOf<EventsJson>(["get", "events"]))?.items.filter(
      (event) => event.reason === "FileSystemResizeSuccessful" && event.involvedObject?.name === reader,
    );
    assert.match(successes?.[0]?.message ?? "", /^MountVolume\.NodeExpandVolume succeeded for volume "pvc-[^"]+" /);
    assert.equal(await kubectlOk(["exec", reader, "--", "cat", "/data/file"]), "kept\n");
    await kubectlOk(["delete", "pod", reader, "--wait=true", "--timeout=240s"]);
    await kubectlOk(["delete", "pvc", "data", "--wait=true", "--timeout=240s"]);
  });
});
