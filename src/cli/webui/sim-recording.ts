/**
 * Records a simulated run for the web UI (`kvol sim run --html`): after every step the volume
 * components' debug states, read in process, are diffed into timeline entries (operations started,
 * failed into backoff, ended; desired and actual state changes); every `snapshotPeriodMs` of run
 * time, and at the end, a snapshot of the graph, the states and `kvol why` of each stuck pod and
 * claim, told by the same code as the command over the API server serving the simulated cluster.
 * Everything is on the virtual clock: the same scenario and seed give the same recording.
 */

import {
  type AttachDetachControllerDebugState,
  attachDetachControllerDebugName,
  type PersistentVolumeControllerDebugState,
  persistentVolumeControllerDebugName,
} from "../../api/debug/debug-state.ts";
import { type LaneEntry, laneOf } from "../../api/debug/lanes.ts";
import { type ComponentStates, noComponentStates, stateChanges } from "../../api/debug/state-changes.ts";
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod, VolumeAttachment } from "../../api/objects.ts";
import { resourceForKind } from "../../api/resources.ts";

import { type RunningApiServer, startApiServer } from "../../apiserver/server.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import { runScenario, type ScenarioResult } from "../../sim/runner/run-scenario.ts";
import type { Scenario } from "../../sim/scenario/model.ts";
import { KubeApi } from "../client/kube-api.ts";
import { clusterControllerStates } from "../embedded/cluster-controller-states.ts";
import { clusterKubelets } from "../embedded/cluster-kubelets.ts";
import { ObjectNotFound } from "../why/explain.ts";
import { reportJson } from "../why/why-report.ts";
import { whyReport } from "../why-command.ts";
import { type ClusterObjects, type GraphObject, graphObjects } from "./graph-objects.ts";
import type { ClusterSnapshot, Recording, WhyJson } from "./ui-data.ts";

/** How often, in run time, the graph and the why chains are recorded. */
export const snapshotPeriodMs = 15_000;

async function listed<T>(cluster: Cluster, kind: string): Promise<T[]> {
  const type = resourceForKind(kind);
  if (type === undefined) throw new Error(`the ${kind} resource is not registered`);
  // The store lists objects of the kind asked for: the type the caller names.
  return (await cluster.store.list(type)).items as unknown as T[];
}

async function clusterObjects(cluster: Cluster): Promise<ClusterObjects> {
  return {
    pods: await listed<Pod>(cluster, "Pod"),
    claims: await listed<PersistentVolumeClaim>(cluster, "PersistentVolumeClaim"),
    volumes: await listed<PersistentVolume>(cluster, "PersistentVolume"),
    attachments: await listed<VolumeAttachment>(cluster, "VolumeAttachment"),
    nodes: await listed<Node>(cluster, "Node"),
  };
}

async function componentStates(cluster: Cluster): Promise<ComponentStates> {
  const kubelets: ComponentStates["kubelets"] = {};
  for (const node of [...cluster.kubeletNodeNames()].sort()) {
    const kubelet = cluster.kubelet(node);
    if (kubelet !== undefined) kubelets[node] = await kubelet.debugState();
  }
  const controllers = clusterControllerStates(cluster);
  const attachDetach = controllers.stateOf(attachDetachControllerDebugName) as
    | AttachDetachControllerDebugState
    | undefined;
  const persistentVolume = controllers.stateOf(persistentVolumeControllerDebugName) as
    | PersistentVolumeControllerDebugState
    | undefined;
  return {
    kubelets,
    ...(attachDetach === undefined ? {} : { attachDetach }),
    ...(persistentVolume === undefined ? {} : { persistentVolume }),
  };
}

/** Pods not Running (nor Completed) and claims not Bound: the objects a user asks `why` about. */
function stuck(object: GraphObject): boolean {
  if (object.kind === "Pod") return object.health !== "ok";
  if (object.kind === "PersistentVolumeClaim") return object.status !== "Bound";
  return false;
}

const whyKinds = { Pod: "Pod", PersistentVolumeClaim: "PersistentVolumeClaim" } as const;

class RunRecorder {
  private states: ComponentStates = noComponentStates;
  readonly entries: LaneEntry[] = [];
  readonly snapshots: ClusterSnapshot[] = [];
  private nextSnapshotMs = 0;
  private server: RunningApiServer | undefined;
  startMs = 0;

  async afterStep(cluster: Cluster, runMs: number): Promise<void> {
    const nowMs = cluster.clock.now();
    this.startMs = nowMs - runMs;
    const states = await componentStates(cluster);
    this.entries.push(...stateChanges(this.states, states, nowMs));
    this.states = states;
    if (runMs >= this.nextSnapshotMs) {
      await this.snapshot(cluster);
      this.nextSnapshotMs = (Math.floor(runMs / snapshotPeriodMs) + 1) * snapshotPeriodMs;
    }
  }

  async snapshot(cluster: Cluster): Promise<void> {
    const nowMs = cluster.clock.now();
    if (this.snapshots.at(-1)?.atMs === nowMs) return;
    const objects = graphObjects(await clusterObjects(cluster));
    const why: Record<string, WhyJson> = {};
    for (const object of objects.filter(stuck)) {
      const kind = whyKinds[object.kind as keyof typeof whyKinds];
      const api = await this.api(cluster);
      try {
        const { report } = await whyReport(api, kind, object.namespace, object.name, nowMs);
        why[object.key] = reportJson(report, nowMs) as WhyJson;
      } catch (error) {
        // Gone while the reports were told (the cluster's own work goes on between reads).
        if (!(error instanceof ObjectNotFound)) throw error;
      }
    }
    this.snapshots.push({ atMs: nowMs, objects, states: this.states, why });
  }

  /** The API server over the simulated cluster, as `kvol why` reads a live one (started at the first report). */
  private async api(cluster: Cluster): Promise<KubeApi> {
    this.server ??= await startApiServer({
      store: cluster.store,
      clock: cluster.clock,
      logger: cluster.logger.with({ component: "kube-apiserver" }),
      port: 0,
      kubelets: clusterKubelets(cluster),
      controllerStates: clusterControllerStates(cluster),
    });
    return new KubeApi({ server: this.server.url });
  }

  async close(): Promise<void> {
    await this.server?.close();
    this.server = undefined;
  }
}

function timelineEntries(result: ScenarioResult, startMs: number): LaneEntry[] {
  return result.timeline.map((entry) => ({
    atMs: startMs + entry.atMs,
    lane: laneOf(entry.component),
    kind: entry.component === "scenario" ? "action" : entry.message.startsWith("Warning ") ? "warning" : "event",
    object: entry.object,
    message: entry.component === "scenario" ? `${entry.message}` : `${entry.message} (${entry.component})`,
  }));
}

/**
 * The pod the page opens on: the one whose chain went deepest (the lowest blocker is furthest from
 * it, as a replacement pod stuck on Multi-Attach behind a dead node), then the one stuck longest.
 */
function focusOf(snapshots: readonly ClusterSnapshot[]): string {
  const depth = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const snapshot of snapshots) {
    for (const [key, why] of Object.entries(snapshot.why)) {
      if (!key.startsWith("pod/")) continue;
      depth.set(key, Math.max(depth.get(key) ?? 0, why.links.length));
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  const ranked = [...depth.keys()].sort(
    (a, b) =>
      (depth.get(b) ?? 0) - (depth.get(a) ?? 0) || (counts.get(b) ?? 0) - (counts.get(a) ?? 0) || (a < b ? -1 : 1),
  );
  return ranked[0] ?? snapshots.at(-1)?.objects.find((object) => object.kind === "Pod")?.key ?? "";
}

export interface RecordedRun {
  result: ScenarioResult;
  recording: Recording;
}

export async function recordScenario(
  scenario: Scenario,
  file: string,
  options: { seed?: number; untilMs?: number },
): Promise<RecordedRun> {
  const recorder = new RunRecorder();
  let result: ScenarioResult;
  try {
    result = await runScenario(scenario, {
      ...options,
      afterStep: (cluster, runMs) => recorder.afterStep(cluster, runMs),
      atEnd: async (cluster) => {
        await recorder.snapshot(cluster);
        await recorder.close();
      },
    });
  } finally {
    await recorder.close();
  }
  const entries = [...timelineEntries(result, recorder.startMs), ...recorder.entries].sort((a, b) => a.atMs - b.atMs);
  return {
    result,
    recording: {
      kind: "KvolRecording",
      scenario: scenario.name,
      file,
      seed: result.seed,
      startMs: recorder.startMs,
      endMs: recorder.startMs + result.endMs,
      passed: result.passed,
      verdicts: result.verdicts.map((verdict) => ({
        expectation: verdict.expectation,
        status: verdict.status,
        ...(verdict.detail === undefined ? {} : { detail: verdict.detail }),
      })),
      entries,
      snapshots: recorder.snapshots,
      focus: focusOf(recorder.snapshots),
    },
  };
}
