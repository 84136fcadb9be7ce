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
 * The envelope may hold more live heap (about 18 KB per running pod at 1,000 nodes; its last run, at
 * 22 KB per pod, peaked at 6.4 GB RSS) than V8's default 4 GB limit: give it room with
 * `NODE_OPTIONS=--max-old-space-size=14336`.
 * Up to 15,000 pods the cost per pod does not grow with the pods; past that, garbage collection over
 * the multi-gigabyte heap is the likely growth (a 3 GB ballast alone took GC from 9 % to 42 % of a
 * 3,000-pod profile). The lifecycle itself is in sim-lifecycle.ts; sim-scale-timeline.test.ts checks
 * that it still writes what it wrote.
 */
import { performance } from "node:perf_hooks";
import { Cluster } from "../src/cmd/cluster.ts";
import type { Row } from "./measure.ts";
import { runSimLifecycle } from "./sim-lifecycle.ts";

const defaultNodes = 1_000;
const defaultPodsPerNode = 10;
const baselineFraction = 10;
/** Nodes of the discarded warm-up run. */
const warmUpNodes = 10;
const bytesPerKilobyte = 1_024;
const bytesPerMegabyte = 1_024 * 1_024;

interface LifecycleFigures {
  pods: number;
  wallMs: number;
  /**
   * User + system CPU of the process, less the heap probe's forced collections: steadier than wall
   * time on a loaded machine. (Before the probe's time was left out, both figures included it.)
   */
  cpuMs: number;
  /** Heap retained once every pod runs, less the heap with only the nodes, per pod (after a full GC). */
  heapBytesPerRunningPod: number;
  virtualMs: number;
  storeWrites: number;
  /** Tasks the VirtualClock ran and event-loop turns it took between them. */
  clockTasks: number;
  clockTurns: number;
  peakRssBytes: number;
}

async function runLifecycle(nodes: number, podsPerNode: number): Promise<LifecycleFigures> {
  const pods = nodes * podsPerNode;
  const cluster = await Cluster.start({ seed: 1, logLevel: "warn" });
  const startWall = performance.now();
  const startCpu = process.cpuUsage();
  const startVirtual = cluster.clock.now();
  const startRevision = cluster.store.revision();
  const startClock = cluster.clock.workDone();
  const heap = new HeapProbe();
  let heapWithNodes = 0;
  let heapBytesPerRunningPod = 0;
  await runSimLifecycle(cluster, nodes, podsPerNode, {
    onNodesReady: () => {
      heapWithNodes = heap.liveBytes();
    },
    onAllRunning: () => {
      heapBytesPerRunningPod = (heap.liveBytes() - heapWithNodes) / pods;
    },
  });
  const figures = {
    pods,
    wallMs: performance.now() - startWall - heap.spentWallMs,
    cpuMs: cpuMsSince(startCpu) - heap.spentCpuMs,
    heapBytesPerRunningPod,
    virtualMs: cluster.clock.now() - startVirtual,
    storeWrites: cluster.store.revision() - startRevision,
    clockTasks: cluster.clock.workDone().tasks - startClock.tasks,
    clockTurns: cluster.clock.workDone().turns - startClock.turns,
    peakRssBytes: process.resourceUsage().maxRSS * bytesPerKilobyte,
  };
  await cluster.stop();
  return figures;
}

/**
 * Reads the live heap with a forced full collection, and keeps the time those collections took so
 * the lifecycle's figures leave them out: at 1,000 nodes the two take about 0.8 s of wall time and
 * 1.5 s of CPU (the collector's threads), which no simulation pays.
 */
class HeapProbe {
  spentWallMs = 0;
  spentCpuMs = 0;

  /** Heap in use after a full collection (npm run bench passes --expose-gc). */
  liveBytes(): number {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc === undefined) throw new Error("run the benchmarks with node --expose-gc (npm run bench does)");
    const startWall = performance.now();
    const startCpu = process.cpuUsage();
    gc();
    const bytes = process.memoryUsage().heapUsed;
    this.spentWallMs += performance.now() - startWall;
    this.spentCpuMs += cpuMsSince(startCpu);
    return bytes;
  }
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
    row("clock tasks per pod", scale.clockTasks / scale.pods, base.clockTasks / base.pods, "tasks", "lower"),
    row("event-loop turns per pod", scale.clockTurns / scale.pods, base.clockTurns / base.pods, "turns", "lower"),
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
