/**
 * The simulator at scale: N nodes with real kubelets and N×10 pods, each with its own claim on the
 * sim-disk provisioner, through create → Running → delete → reclaimed (every PV and disk gone), on
 * virtual time. The baseline is the same lifecycle at a tenth of the size, run first in the same
 * process, so the ratios say how the cost grows: 1.0 per pod means linear.
 *
 * `npm run bench -- sim-scale`; `KVOL_BENCH_SIM_NODES=200` runs a smaller cluster (default 1,000),
 * `KVOL_BENCH_PODS_PER_NODE=30` packs more pods on each node (default 10): Kubernetes' envelope is
 * `KVOL_BENCH_SIM_NODES=5000 KVOL_BENCH_PODS_PER_NODE=30` (150,000 pods). A 10-node warm-up run comes
 * first and is not reported. Peak RSS is the process's, so the larger run's figure includes the smaller's.
 * The envelope holds more live heap (about 30 KB per running pod) than V8's default 4 GB limit: give it
 * room with `NODE_OPTIONS=--max-old-space-size=14336`.
 */
import { performance } from "node:perf_hooks";
import type { PersistentVolumeClaim, Pod } from "../src/api/objects.ts";
import { Cluster } from "../src/cmd/cluster.ts";
import { storageClassYaml } from "../src/sim/testing/manifests.ts";
import type { Row } from "./measure.ts";

const defaultNodes = 1_000;
const defaultPodsPerNode = 10;
const baselineFraction = 10;
/** Nodes of the discarded warm-up run. */
const warmUpNodes = 10;
/** Virtual time allowed for each phase; the lifecycle needs seconds to minutes of it. */
const phaseTimeoutMs = 60 * 60_000;
const bytesPerKilobyte = 1_024;
const bytesPerMegabyte = 1_024 * 1_024;

interface LifecycleFigures {
  pods: number;
  wallMs: number;
  /** User + system CPU of the process: steadier than wall time on a loaded machine. */
  cpuMs: number;
  /** Heap retained once every pod runs, less the heap with only the nodes, per pod (after a full GC). */
  heapBytesPerRunningPod: number;
  virtualMs: number;
  storeWrites: number;
  peakRssBytes: number;
}

function claim(index: number): PersistentVolumeClaim {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: `data-${index}`, namespace: "default" },
    spec: { accessModes: ["ReadWriteOnce"], storageClassName: "standard", resources: { requests: { storage: "1Gi" } } },
  };
}

function pod(index: number): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `app-${index}`, namespace: "default" },
    spec: {
      containers: [{ name: "app", image: "busybox:1.36", volumeMounts: [{ name: "data", mountPath: "/data" }] }],
      volumes: [{ name: "data", persistentVolumeClaim: { claimName: `data-${index}` } }],
    },
  };
}

/** Counts from informer events, so waiting costs O(1) per step instead of a list of every pod. */
class LifecycleCounters {
  running = 0;
  pods = 0;
  volumes = 0;

  constructor(cluster: Cluster) {
    cluster.informers.informerFor("Pod").addEventHandler({
      onAdd: (object) => {
        this.pods++;
        if (object.status?.phase === "Running") this.running++;
      },
      onUpdate: (before, after) => {
        if (before.status?.phase !== "Running" && after.status?.phase === "Running") this.running++;
      },
      onDelete: () => {
        this.pods--;
      },
    });
    cluster.informers.informerFor("PersistentVolume").addEventHandler({
      onAdd: () => this.volumes++,
      onDelete: () => this.volumes--,
    });
  }
}

async function runLifecycle(nodes: number, podsPerNode: number): Promise<LifecycleFigures> {
  const pods = nodes * podsPerNode;
  const cluster = await Cluster.start({ seed: 1, logLevel: "warn" });
  const counters = new LifecycleCounters(cluster);
  const startWall = performance.now();
  const startCpu = process.cpuUsage();
  const startVirtual = cluster.clock.now();
  const startRevision = cluster.store.revision();
  for (let i = 0; i < nodes; i++) await cluster.addNode(`node-${i}`, { zone: "zone-a" });
  await cluster.apply(storageClassYaml({ bindingMode: "Immediate" }));
  const heapWithNodes = liveHeapBytes();
  for (let i = 0; i < pods; i++) {
    await cluster.client.persistentVolumeClaims.create(claim(i));
    await cluster.client.pods.create(pod(i));
  }
  await cluster.runUntil(() => counters.running === pods, {
    timeoutMs: phaseTimeoutMs,
    description: "all pods Running",
  });
  const heapBytesPerRunningPod = (liveHeapBytes() - heapWithNodes) / pods;
  for (let i = 0; i < pods; i++) {
    await cluster.client.pods.delete("default", `app-${i}`);
    await cluster.client.persistentVolumeClaims.delete("default", `data-${i}`);
  }
  await cluster.runUntil(() => counters.pods === 0 && counters.volumes === 0, {
    timeoutMs: phaseTimeoutMs,
    description: "every pod gone and every volume reclaimed",
  });
  const figures = {
    pods,
    wallMs: performance.now() - startWall,
    cpuMs: cpuMsSince(startCpu),
    heapBytesPerRunningPod,
    virtualMs: cluster.clock.now() - startVirtual,
    storeWrites: cluster.store.revision() - startRevision,
    peakRssBytes: process.resourceUsage().maxRSS * bytesPerKilobyte,
  };
  await cluster.stop();
  return figures;
}

/** Heap in use after a full collection (npm run bench passes --expose-gc). */
function liveHeapBytes(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run the benchmarks with node --expose-gc (npm run bench does)");
  gc();
  return process.memoryUsage().heapUsed;
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1_000;
}

function rows(scale: LifecycleFigures, base: LifecycleFigures, nodes: number): Row[] {
  const label = `${nodes} nodes, ${scale.pods} pods`;
  const baseName = `${Math.round(nodes / baselineFraction)} nodes`;
  const writesPerSecond = (f: LifecycleFigures) => f.storeWrites / (f.wallMs / 1_000);
  const row = (measure: string, value: number, baseline: number, unit: string, better: Row["better"]): Row => ({
    group: "sim-scale",
    measure: `${label}: ${measure}`,
    value,
    unit,
    baselineName: baseName,
    baseline,
    better,
  });
  return [
    row("wall time per pod", scale.wallMs / scale.pods, base.wallMs / base.pods, "ms", "lower"),
    row("CPU time per pod", scale.cpuMs / scale.pods, base.cpuMs / base.pods, "ms", "lower"),
    row("wall time, whole lifecycle", scale.wallMs / 1_000, base.wallMs / 1_000, "s", "lower"),
    row("virtual time, whole lifecycle", scale.virtualMs / 1_000, base.virtualMs / 1_000, "s", "lower"),
    row("store writes per pod", scale.storeWrites / scale.pods, base.storeWrites / base.pods, "writes", "lower"),
    row("store writes per wall second", writesPerSecond(scale), writesPerSecond(base), "writes/s", "higher"),
    row("peak RSS", scale.peakRssBytes / bytesPerMegabyte, base.peakRssBytes / bytesPerMegabyte, "MB", "lower"),
    row(
      "live heap per running pod",
      scale.heapBytesPerRunningPod / bytesPerKilobyte,
      base.heapBytesPerRunningPod / bytesPerKilobyte,
      "KB",
      "lower",
    ),
  ];
}

export async function simScaleBenchmarks(): Promise<Row[]> {
  const nodes = Number(process.env.KVOL_BENCH_SIM_NODES ?? defaultNodes);
  if (!Number.isInteger(nodes) || nodes < baselineFraction) {
    throw new Error(`KVOL_BENCH_SIM_NODES must be an integer of at least ${baselineFraction}, got ${nodes}`);
  }
  const podsPerNode = Number(process.env.KVOL_BENCH_PODS_PER_NODE ?? defaultPodsPerNode);
  if (!Number.isInteger(podsPerNode) || podsPerNode < 1) {
    throw new Error(`KVOL_BENCH_PODS_PER_NODE must be a positive integer, got ${podsPerNode}`);
  }
  // A small run first, so the baseline is not charged for loading and compiling the code.
  await runLifecycle(warmUpNodes, podsPerNode);
  const base = await runLifecycle(Math.round(nodes / baselineFraction), podsPerNode);
  const scale = await runLifecycle(nodes, podsPerNode);
  return rows(scale, base, nodes);
}
