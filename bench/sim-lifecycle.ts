/**
 * The sim-scale lifecycle: N nodes with real kubelets and N×k pods, each with its own claim on the
 * sim-disk provisioner, through create → Running → delete → reclaimed (every PV and disk gone), on
 * virtual time. The benchmark times it; its timeline test hashes what it writes, so a faster run is
 * known to be the same run.
 */
import type { PersistentVolumeClaim, Pod } from "../src/api/objects.ts";
import type { Cluster } from "../src/cmd/cluster.ts";
import { storageClassYaml } from "../src/sim/testing/manifests.ts";

/** Virtual time allowed for each phase; the lifecycle needs seconds to minutes of it. */
const phaseTimeoutMs = 60 * 60_000;

export function lifecycleClaim(index: number): PersistentVolumeClaim {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: `data-${index}`, namespace: "default" },
    spec: { accessModes: ["ReadWriteOnce"], storageClassName: "standard", resources: { requests: { storage: "1Gi" } } },
  };
}

export function lifecyclePod(index: number): Pod {
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

export interface LifecycleHooks {
  /** Called once the nodes and the storage class exist, before the first claim. */
  onNodesReady?: () => void;
  /** Called once every pod runs, before the first delete. */
  onAllRunning?: () => void;
}

/** Runs the whole lifecycle on a started cluster. */
export async function runSimLifecycle(
  cluster: Cluster,
  nodes: number,
  podsPerNode: number,
  hooks: LifecycleHooks = {},
): Promise<void> {
  const pods = nodes * podsPerNode;
  const counters = new LifecycleCounters(cluster);
  for (let i = 0; i < nodes; i++) await cluster.addNode(`node-${i}`, { zone: "zone-a" });
  await cluster.apply(storageClassYaml({ bindingMode: "Immediate" }));
  hooks.onNodesReady?.();
  for (let i = 0; i < pods; i++) {
    await cluster.client.persistentVolumeClaims.create(lifecycleClaim(i));
    await cluster.client.pods.create(lifecyclePod(i));
  }
  await cluster.runUntil(() => counters.running === pods, {
    timeoutMs: phaseTimeoutMs,
    description: "all pods Running",
  });
  hooks.onAllRunning?.();
  for (let i = 0; i < pods; i++) {
    await cluster.client.pods.delete("default", `app-${i}`);
    await cluster.client.persistentVolumeClaims.delete("default", `data-${i}`);
  }
  await cluster.runUntil(() => counters.pods === 0 && counters.volumes === 0, {
    timeoutMs: phaseTimeoutMs,
    description: "every pod gone and every volume reclaimed",
  });
}
