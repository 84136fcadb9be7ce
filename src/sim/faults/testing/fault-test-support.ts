/**
 * What the fault tests share: a pod with a provisioned sim-disk volume running on a node, and what a
 * user reads about it (the node's Ready condition, whether the volume is mounted on the machine).
 */
import type { Pod } from "../../../api/objects.ts";
import type { Cluster } from "../../../cmd/cluster.ts";
import { simDiskPluginName } from "../../../volume/plugins/simdisk/sim-disk-source.ts";
import { isRunning, mountPointsUnder, podVolumePath } from "../../testing/e2e.ts";
import { claimYaml, podUsingClaimYaml, storageClassYaml } from "../../testing/manifests.ts";

export const secondMs = 1_000;
export const minuteMs = 60 * secondMs;

interface RunningDiskPod {
  pod: Pod;
  /** The PV's name, which is also the cloud disk's id. */
  pvName: string;
  /** Where the volume is mounted for the pod on its node. */
  podPath: string;
}

/** Applies a class, claim `data` and pod `app` using it, and runs until the pod is Running. */
export async function startDiskPod(cluster: Cluster, options: { podName?: string } = {}): Promise<RunningDiskPod> {
  const podName = options.podName ?? "app";
  await cluster.apply([storageClassYaml(), claimYaml("data"), podUsingClaimYaml(podName, "data")].join("---\n"));
  await cluster.runUntil(async () => isRunning(await cluster.tryGet("Pod", "default", podName)), {
    timeoutMs: 2 * minuteMs,
    description: `pod ${podName} running`,
  });
  const pod = await cluster.get("Pod", "default", podName);
  const pvName = (await cluster.get("PersistentVolumeClaim", "default", "data")).spec?.volumeName ?? "";
  return { pod, pvName, podPath: podVolumePath(pod, simDiskPluginName, pvName) };
}

/** The status of the node's Ready condition (`True`, `False`, `Unknown`), as `kubectl get node` shows it. */
export async function nodeReady(cluster: Cluster, nodeName: string): Promise<string | undefined> {
  const node = await cluster.get("Node", "", nodeName);
  return node.status?.conditions?.find((condition) => condition.type === "Ready")?.status;
}

/** Whether `path` is a mount point on the node's machine now. */
export async function isMounted(cluster: Cluster, nodeName: string, path: string): Promise<boolean> {
  return (await mountPointsUnder(cluster.world.node(nodeName), path)).includes(path);
}
