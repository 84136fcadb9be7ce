/**
 * The whole-path half of `npm run bench -- real-node`, run by real-node.bench.ts inside a private
 * mount namespace: `kvol up --host linux --nodes 1`, then per round a 1Gi claim of the default
 * StorageClass `standard` (disk.csi.kvol.io, WaitForFirstConsumer) and a busybox pod using it, from
 * creation to Running, then both deleted until the PV is gone. The moments come from watches on the
 * API (claim, pod, PV, VolumeAttachment) and from polling the node's mount table; cluster-phases.ts
 * turns them into phases. The raw commands doing the same work run in the same round right before.
 * Prints one JSON line: for each round, the raw phases and the cluster's setup and teardown phases.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { DataDir } from "../src/cli/embedded/data-dir.ts";
import { KvolProcess, type StartedCluster, startedCluster } from "../src/cli/testing/kvol-process.ts";
import { waitFor } from "../src/cli/testing/wait-for.ts";
import { agentPidFileName } from "../src/cmd/linux-node-agent.ts";
import { probeLinuxRuntime } from "../src/cri/linux/runtime-requirements.ts";
import { type Milestones, phaseDurations, setupMilestones, teardownMilestones } from "./cluster-phases.ts";
import { type PhaseTimes, rawRound } from "./raw-volume-round.ts";

const rounds = Number(process.env.KVOL_BENCH_REAL_NODE_ROUNDS ?? "3");
/** Patience, not a claim: the machine may be busy. */
const startTimeoutMs = 120_000;
const roundTimeoutMs = 300_000;
const mountPollMs = 5;
const nodeName = "node-1";
const selectedNodeAnnotation = "volume.kubernetes.io/selected-node";

interface WatchEvent {
  type: string;
  object: {
    metadata?: { name?: string; annotations?: Record<string, string> };
    spec?: { volumeName?: string; source?: { persistentVolumeName?: string } };
    status?: {
      phase?: string;
      attached?: boolean;
      conditions?: { type?: string; status?: string }[];
      containerStatuses?: { state?: { terminated?: unknown } }[];
    };
  };
}

/** Streams a watch, calling `onEvent` with the moment each event arrived, until `signal` aborts. */
async function watch(
  fetch: StartedCluster["fetch"],
  url: string,
  path: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  onEvent: (event: WatchEvent, at: number) => void,
): Promise<void> {
  const response = await fetch(`${url}${path}?watch=true`, { headers, signal });
  if (!response.ok || response.body === null)
    throw new Error(`watch ${path}: ${response.status} ${await response.text()}`);
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    for await (const chunk of response.body) {
      const at = performance.now();
      buffered += decoder.decode(chunk as Uint8Array, { stream: true });
      let newline = buffered.indexOf("\n");
      while (newline >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line !== "") onEvent(JSON.parse(line) as WatchEvent, at);
        newline = buffered.indexOf("\n");
      }
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}

/** One round's milestones, each kept at the first moment it was seen. */
class RoundWatch {
  readonly setup: Milestones = {};
  readonly teardown: Milestones = {};
  pvName = "";
  podUid = "";
  tearingDown = false;

  constructor(readonly name: string) {}

  mark(milestone: string, at: number): void {
    const into = this.tearingDown ? this.teardown : this.setup;
    if (into[milestone] === undefined) into[milestone] = at;
  }

  onClaim(event: WatchEvent, at: number): void {
    const claim = event.object;
    if (claim.metadata?.name !== this.name || this.tearingDown) return;
    if (claim.metadata.annotations?.[selectedNodeAnnotation] !== undefined) this.mark("schedule", at);
    if (claim.status?.phase === "Bound") {
      this.pvName = claim.spec?.volumeName ?? "";
      this.mark("provision", at);
    }
  }

  onPod(event: WatchEvent, at: number): void {
    const pod = event.object;
    if (pod.metadata?.name !== this.name) return;
    if (event.type === "DELETED") {
      this.mark("pod removed", at);
    } else if (!this.tearingDown) {
      const scheduled = pod.status?.conditions?.some((c) => c.type === "PodScheduled" && c.status === "True");
      if (scheduled) this.mark("bind", at);
      if (pod.status?.phase === "Running") this.mark("container start", at);
    } else if (pod.status?.containerStatuses?.some((s) => s.state?.terminated !== undefined)) {
      this.mark("container stop", at);
    }
  }

  onAttachment(event: WatchEvent, at: number): void {
    const attachment = event.object;
    if (this.pvName === "" || attachment.spec?.source?.persistentVolumeName !== this.pvName) return;
    if (this.tearingDown && event.type === "DELETED") this.mark("detach", at);
    if (!this.tearingDown && attachment.status?.attached === true) this.mark("attach", at);
  }

  onVolume(event: WatchEvent, at: number): void {
    if (this.tearingDown && event.type === "DELETED" && event.object.metadata?.name === this.pvName) {
      this.mark("delete volume", at);
    }
  }

  /** The node's mount table: the volume's global mount and the pod's mount, appearing then going. */
  onMounts(mountPoints: readonly string[], at: number): void {
    const device = mountPoints.some((m) => m.includes("/plugins/kubernetes.io/csi/") && m.endsWith("/globalmount"));
    const published =
      this.pvName !== "" && mountPoints.some((m) => m.endsWith(`/volumes/kubernetes.io~csi/${this.pvName}/mount`));
    if (!this.tearingDown) {
      if (device) this.mark("format+mount-device", at);
      if (published) this.mark("publish", at);
    } else {
      if (!published) this.mark("unpublish", at);
      if (!device) this.mark("unmount device", at);
    }
  }
}

function mountPointsOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/mountinfo`, "utf8")
    .split("\n")
    .map((line) => line.split(" ")[4] ?? "")
    .filter((point) => point !== "");
}

function claimAndPod(name: string): [string, object][] {
  return [
    [
      "persistentvolumeclaims",
      {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { name },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      },
    ],
    [
      "pods",
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name },
        spec: {
          terminationGracePeriodSeconds: 5,
          containers: [
            {
              name: "app",
              image: "busybox",
              // Exits on SIGTERM, so the stop measures the system rather than the grace period.
              command: ["sh", "-c", "trap 'exit 0' TERM; touch /data/.trapped; sleep 3600 & wait"],
              volumeMounts: [{ name: "data", mountPath: "/data" }],
            },
          ],
          volumes: [{ name: "data", persistentVolumeClaim: { claimName: name } }],
        },
      },
    ],
  ];
}

interface Cluster {
  url: string;
  /** Trusts the data directory's CA: tokens go over HTTPS only. */
  fetch: StartedCluster["fetch"];
  headers: Record<string, string>;
  agentPid: number;
  dataDir: string;
}

async function clusterRound(cluster: Cluster, round: RoundWatch): Promise<void> {
  const { url, fetch, headers, agentPid } = cluster;
  const base = `${url}/api/v1/namespaces/default`;
  round.mark("created", performance.now());
  for (const [resource, body] of claimAndPod(round.name)) {
    const response = await fetch(`${base}/${resource}`, { method: "POST", headers, body: JSON.stringify(body) });
    if (response.status !== 201) throw new Error(`create ${resource}/${round.name}: ${await response.text()}`);
  }
  await waitFor(
    `pod ${round.name} Running`,
    () => round.setup["container start"] !== undefined || undefined,
    roundTimeoutMs,
  );
  // Untimed: the container has set its SIGTERM trap (seen through the node's root).
  const uid = ((await (await fetch(`${base}/pods/${round.name}`, { headers })).json()) as { metadata: { uid: string } })
    .metadata.uid;
  const trapped = `/proc/${agentPid}/root${podVolumePath(cluster, uid, round.pvName)}/.trapped`;
  await waitFor(`${trapped}`, () => existsSync(trapped) || undefined, roundTimeoutMs);
  round.tearingDown = true;
  round.mark("deleted", performance.now());
  for (const resource of ["pods", "persistentvolumeclaims"]) {
    const response = await fetch(`${base}/${resource}/${round.name}`, { method: "DELETE", headers });
    if (!response.ok) throw new Error(`delete ${resource}/${round.name}: ${await response.text()}`);
  }
  await waitFor(
    `PV of ${round.name} deleted`,
    () => round.teardown["delete volume"] !== undefined || undefined,
    roundTimeoutMs,
  );
}

function podVolumePath(cluster: Cluster, uid: string, pvName: string): string {
  return join(cluster.dataDir, "nodes", nodeName, "kubelet/pods", uid, "volumes/kubernetes.io~csi", pvName, "mount");
}

async function main(): Promise<void> {
  const probe = await probeLinuxRuntime();
  if ("problems" in probe) throw new Error(probe.problems.join("; "));
  const dataDir = await mkdtemp(join(tmpdir(), "kvol-bench-real-cluster-"));
  const up = new KvolProcess(["up", "--host", "linux", "--nodes", "1", "--port", "0", "--data-dir", dataDir]);
  const stop = new AbortController();
  const results: Array<{ raw: PhaseTimes; setup: PhaseTimes; teardown: PhaseTimes }> = [];
  let poller: NodeJS.Timeout | undefined;
  try {
    const { url, fetch } = await startedCluster(up, startTimeoutMs);
    await up.waitForOutput(/Ready: 1 real node\(s\) on this machine/, startTimeoutMs);
    const headers = {
      Authorization: `Bearer ${new DataDir(dataDir).ensureAdminToken()}`,
      "Content-Type": "application/json",
    };
    const agentPid = Number(readFileSync(join(dataDir, "nodes", nodeName, agentPidFileName), "utf8"));
    const cluster = { url, fetch, headers, agentPid, dataDir };
    let current = new RoundWatch("none");
    const watches = [
      ["/api/v1/namespaces/default/persistentvolumeclaims", (e: WatchEvent, at: number) => current.onClaim(e, at)],
      ["/api/v1/namespaces/default/pods", (e: WatchEvent, at: number) => current.onPod(e, at)],
      ["/api/v1/persistentvolumes", (e: WatchEvent, at: number) => current.onVolume(e, at)],
      ["/apis/storage.k8s.io/v1/volumeattachments", (e: WatchEvent, at: number) => current.onAttachment(e, at)],
    ] as const;
    const streams = watches.map(([path, onEvent]) => watch(fetch, url, path, headers, stop.signal, onEvent));
    poller = setInterval(() => current.onMounts(mountPointsOf(agentPid), performance.now()), mountPollMs);
    // A first round builds the busybox image and warms every path; it is not counted.
    for (let index = 0; index <= rounds; index += 1) {
      const raw = index === 0 ? {} : await rawRound(dataDir, probe.tools.busybox);
      current = new RoundWatch(`bench-${index}`);
      await clusterRound(cluster, current);
      if (index > 0) {
        results.push({
          raw,
          setup: phaseDurations(setupMilestones, current.setup),
          teardown: phaseDurations(teardownMilestones, current.teardown),
        });
      }
    }
    stop.abort();
    await Promise.all(streams);
  } finally {
    clearInterval(poller);
    stop.abort();
    await up.stop("SIGTERM");
    await rm(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

await main();
