/**
 * Helpers for the end-to-end tests that run a whole cluster with real kubelets (`src/sim/e2e-*.test.ts`):
 * what a user reads from `kubectl get/describe` (pod phase, container state, events, node status)
 * and from the node itself (mounts, file contents), plus `Milestones`, which notes the virtual time
 * at which each observation first held so a test can assert timings and their order.
 */
import type { Event, Pod } from "../../api/objects.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import type { SimHost } from "../../host/sim/sim-host.ts";
import { defaultKubeletRootDir, podVolumeDir } from "../../volume/paths.ts";

type Probe = () => boolean | Promise<boolean>;

const nanosecondsPerMillisecond = 1_000_000n;

/** When an Event was first recorded, in the cluster clock's milliseconds (its name ends in nanoseconds, in hex). */
export function firstRecordedMs(event: Event): number {
  const name = event.metadata?.name ?? "";
  const suffix = name.slice(name.lastIndexOf(".") + 1);
  if (!/^[0-9a-f]+$/.test(suffix)) throw new Error(`event ${name} carries no first-occurrence time in its name`);
  return Number(BigInt(`0x${suffix}`) / nanosecondsPerMillisecond);
}

/** The messages of the pod's events with this reason, oldest first. */
export async function podEventMessages(cluster: Cluster, pod: Pod, reason: string): Promise<string[]> {
  return (await podEvents(cluster, pod, reason)).map((event) => event.message ?? "");
}

export async function podEvents(cluster: Cluster, pod: Pod, reason?: string): Promise<Event[]> {
  return cluster.events({
    kind: "Pod",
    namespace: pod.metadata?.namespace ?? "",
    name: pod.metadata?.name ?? "",
    ...(reason === undefined ? {} : { reason }),
  });
}

/** Pods of the namespace, live ones only (no deletionTimestamp) unless `includeTerminating`. */
export async function podsIn(cluster: Cluster, namespace: string, includeTerminating = false): Promise<Pod[]> {
  const pods = await cluster.list("Pod", { namespace });
  return includeTerminating ? pods : pods.filter((pod) => pod.metadata?.deletionTimestamp === undefined);
}

export function isRunning(pod: Pod | undefined): boolean {
  return (
    pod?.status?.phase === "Running" &&
    (pod.status.containerStatuses ?? []).every((status) => status.state?.running !== undefined)
  );
}

/** `kubectl get pod`'s STATUS column for a pod waiting to start: the first waiting container's reason. */
export function waitingReason(pod: Pod | undefined): string | undefined {
  return pod?.status?.containerStatuses?.find((status) => status.state?.waiting)?.state?.waiting?.reason;
}

/** `/var/lib/kubelet/pods/<uid>/volumes/<plugin, escaped>/<spec name>`: where the pod's volume is mounted. */
export function podVolumePath(pod: Pod, pluginName: string, specName: string): string {
  const uid = pod.metadata?.uid;
  if (uid === undefined) throw new Error(`pod ${pod.metadata?.name} has no uid yet`);
  return podVolumeDir(defaultKubeletRootDir, uid, pluginName, specName);
}

/** `node.status.volumesAttached` names and `node.status.volumesInUse`, as `kubectl get node -o yaml` shows them. */
export async function nodeVolumes(
  cluster: Cluster,
  nodeName: string,
): Promise<{ attached: string[]; inUse: string[] }> {
  const status = (await cluster.get("Node", "", nodeName)).status;
  return {
    attached: (status?.volumesAttached ?? []).map((volume) => volume.name),
    inUse: [...(status?.volumesInUse ?? [])],
  };
}

export async function readText(host: SimHost, path: string): Promise<string> {
  return new TextDecoder().decode(await host.readFile(path));
}

/** The mount points on `host` under `prefix`, sorted. */
export async function mountPointsUnder(host: SimHost, prefix: string): Promise<string[]> {
  return (await host.mountInfo())
    .map((mount) => mount.mountPoint)
    .filter((mountPoint) => mountPoint.startsWith(prefix))
    .sort();
}

/**
 * Notes the virtual time at which each probe first held, checking every probe after every step of
 * virtual time while the cluster runs. `runUntil(name)` runs until that one has held.
 */
export class Milestones {
  private readonly seenAtMs = new Map<string, number>();
  private readonly probes: ReadonlyMap<string, Probe>;

  constructor(
    private readonly cluster: Cluster,
    probes: Readonly<Record<string, Probe>>,
  ) {
    this.probes = new Map(Object.entries(probes));
  }

  /** Runs the cluster until `name` has held (at most `timeoutMs` of virtual time); returns when it first did. */
  async runUntil(name: string, timeoutMs: number): Promise<number> {
    if (!this.probes.has(name)) throw new Error(`Milestones: no probe named "${name}"`);
    await this.cluster.runUntil(
      async () => {
        await this.sample();
        return this.seenAtMs.has(name);
      },
      { timeoutMs, description: name },
    );
    return this.at(name);
  }

  /** Runs `durationMs` of virtual time, sampling after every step. */
  async runFor(durationMs: number): Promise<void> {
    const endMs = this.cluster.clock.now() + durationMs;
    await this.cluster.runUntil(
      async () => {
        await this.sample();
        return this.cluster.clock.now() >= endMs;
      },
      { timeoutMs: durationMs + 1, description: `${durationMs} ms` },
    );
  }

  /** When `name` first held; throws when it has not. */
  at(name: string): number {
    const atMs = this.seenAtMs.get(name);
    if (atMs === undefined) throw new Error(`Milestones: "${name}" has not held yet`);
    return atMs;
  }

  has(name: string): boolean {
    return this.seenAtMs.has(name);
  }

  private async sample(): Promise<void> {
    const nowMs = this.cluster.clock.now();
    for (const [name, probe] of this.probes) {
      if (!this.seenAtMs.has(name) && (await probe())) this.seenAtMs.set(name, nowMs);
    }
  }
}
