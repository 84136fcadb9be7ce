/**
 * A simulated node for volume manager tests: an in-memory API server, one SimHost in a SimWorld on
 * the same VirtualClock, the in-tree plugins, and stand-ins for the rest of the kubelet (pod
 * manager, pod workers' state) and for the attach/detach controller (the test writes
 * `node.status.volumesAttached` itself). `restartKubelet()` builds a fresh volume manager over the
 * same Host, as a kubelet restart does.
 */
import type { Event, Node, PersistentVolume, PersistentVolumeClaim, Pod } from "kubernetes-types/core/v1.js";
import { InProcessClient } from "../../../api/client/in-process-client.ts";
import { EventRecorder } from "../../../api/events/recorder.ts";
import type { KubeStore } from "../../../api/store/kube-store.ts";
import { createMemoryStore } from "../../../api/store/memory-store.ts";
import { DEFAULT_TIMERS } from "../../../api/timers.ts";
import type { SimHost } from "../../../host/sim/sim-host.ts";
import { SimWorld } from "../../../host/sim/sim-world.ts";
import { Logger, MemorySink } from "../../../runtime/logger.ts";
import { Rng } from "../../../runtime/rng.ts";
import { VirtualClock } from "../../../runtime/virtual-clock.ts";
import { VolumePluginManager } from "../../../volume/plugin-manager.ts";
import { inTreeVolumePlugins } from "../../../volume/plugins/in-tree-plugins.ts";
import type { RecordedCommand } from "../../../volume/testing/recording-host.ts";
import { settle, simNode } from "../../../volume/testing/sim-node.ts";
import type { NodeVolumeContext } from "../../../volume/volume-host.ts";
import { ClientVolumeApi } from "../client-volume-api.ts";
import { KubeletVolumeManager } from "../kubelet-volume-manager.ts";
import type { PodManager, PodStateProvider } from "../pod-sources.ts";

export const testNodeName = "node-1";
export const testNamespace = "default";
/** The sim-disk plugin's unique volume name for a disk. */
export function simDiskVolumeName(diskId: string): string {
  return `kvol.io/sim-disk/${diskId}`;
}

/** The kubelet's pod manager and pod workers, driven by the test. */
export class FakePods implements PodManager, PodStateProvider {
  private readonly pods = new Map<string, Pod>();
  /** Pods whose containers are terminating (deleted, or finished). */
  readonly terminating = new Set<string>();
  /** Pods whose containers have all stopped. */
  readonly runtimeRemoved = new Set<string>();
  /**
   * Whether the pod sources have synced. Before that the pod workers cannot tell that an unknown
   * pod has no containers (a restarted kubelet), so they answer "runtime not removed" for it.
   */
  podsSynced = true;

  add(pod: Pod): void {
    this.pods.set(pod.metadata?.uid ?? "", pod);
  }

  /** The pod leaves the pod manager (its API object is gone) and its containers have stopped. */
  remove(uid: string): void {
    this.pods.delete(uid);
    this.terminating.add(uid);
    this.runtimeRemoved.add(uid);
  }

  /** The pod manager loses the pod without anything being known about its containers (a restart). */
  forget(uid: string): void {
    this.pods.delete(uid);
  }

  getPods(): readonly Pod[] {
    return [...this.pods.values()];
  }

  getPodByUID(uid: string): Pod | undefined {
    return this.pods.get(uid);
  }

  shouldPodContainersBeTerminating(uid: string): boolean {
    return this.terminating.has(uid) || !this.pods.has(uid);
  }

  shouldPodRuntimeBeRemoved(uid: string): boolean {
    if (this.runtimeRemoved.has(uid)) return true;
    return !this.pods.has(uid) && this.podsSynced;
  }
}

export interface VolumeManagerEnv {
  clock: VirtualClock;
  store: KubeStore;
  client: InProcessClient;
  world: SimWorld;
  host: SimHost;
  node: NodeVolumeContext;
  /** Every command the plugins ran on the node, across restarts. */
  commands: RecordedCommand[];
  logs: MemorySink;
  recorder: EventRecorder;
  pods: FakePods;
  /** Replaces what SourcesReady answers (the API server's first list has not arrived yet, …). */
  setSourcesReady(allReady: () => boolean): void;
  manager: KubeletVolumeManager;
  /** Stops the running volume manager and starts a new one over the same node (a kubelet restart). */
  restartKubelet(): Promise<KubeletVolumeManager>;
  /** Creates the pod in the API and hands it to the pod manager. */
  addPod(pod: Pod): Promise<Pod>;
  /** The pod's containers stopped and its API object is gone (deleted, then finalized). */
  deletePod(pod: Pod): Promise<void>;
  /** Writes `node.status.volumesInUse` once states synced, and reports it back (the node status loop). */
  reportVolumesInUse(): Promise<void>;
  /** Plays the attach/detach controller: attaches the disk and lists it in `node.status.volumesAttached`. */
  attachDisk(diskId: string): Promise<string>;
  /** Events recorded so far, oldest first. */
  events(): Promise<Event[]>;
}

export async function volumeManagerEnv(seed = 1): Promise<VolumeManagerEnv> {
  const clock = new VirtualClock();
  const rng = new Rng(seed);
  const store = createMemoryStore({ clock, random: rng.stream("store") });
  const client = new InProcessClient(store);
  const logs = new MemorySink();
  const logger = new Logger({ clock, sink: logs, level: "debug" });
  const world = new SimWorld(clock, rng.stream("world"));
  const fixture = await simNode({ world, nodeName: testNodeName, seed });
  await client.nodes.create({ apiVersion: "v1", kind: "Node", metadata: { name: testNodeName }, status: {} });
  const recorder = new EventRecorder({ client, clock, logger, source: { component: "kubelet", host: testNodeName } });
  const pods = new FakePods();
  const cachedNode: { current: Node | undefined } = { current: undefined };
  let sourcesReady: () => boolean = () => true;

  const newManager = (): KubeletVolumeManager => {
    const plugins = new VolumePluginManager();
    plugins.register(inTreeVolumePlugins(), {
      clock,
      rng: rng.stream(`kubelet-volume-host/${clock.now()}`),
      logger: fixture.logger,
      api: new ClientVolumeApi(client),
      node: fixture.node,
    });
    const manager = new KubeletVolumeManager({
      clock,
      logger,
      timers: DEFAULT_TIMERS,
      client,
      node: fixture.node,
      plugins,
      podManager: pods,
      podStateProvider: pods,
      sourcesReady: { allReady: () => sourcesReady() },
      recorder,
      cachedNode: () => cachedNode.current,
    });
    manager.run();
    return manager;
  };

  const refreshCachedNode = async (): Promise<void> => {
    cachedNode.current = await client.nodes.get("", testNodeName);
  };

  const env: VolumeManagerEnv = {
    clock,
    store,
    client,
    world,
    host: fixture.host,
    node: fixture.node,
    commands: fixture.commands,
    logs,
    recorder,
    pods,
    setSourcesReady(allReady) {
      sourcesReady = allReady;
    },
    manager: newManager(),
    async restartKubelet() {
      await env.manager.stop();
      env.manager = newManager();
      return env.manager;
    },
    async addPod(pod) {
      const created = await client.pods.create(pod);
      pods.add(created);
      return created;
    },
    async deletePod(pod) {
      pods.remove(pod.metadata?.uid ?? "");
      await client.pods.delete(pod.metadata?.namespace ?? "", pod.metadata?.name ?? "", { gracePeriodSeconds: 0 });
    },
    async reportVolumesInUse() {
      if (!env.manager.statesHaveBeenSynced()) return;
      const inUse = env.manager.getVolumesInUse();
      const updated = await client.nodes.mutate(
        "",
        testNodeName,
        (draft) => {
          draft.status = { ...draft.status, volumesInUse: inUse };
        },
        { subresource: "status" },
      );
      cachedNode.current = updated;
      env.manager.markVolumesAsReportedInUse(updated.status?.volumesInUse ?? []);
    },
    async attachDisk(diskId) {
      // The provider takes virtual time to attach: run the clock (and with it the kubelet) meanwhile.
      const devicePath = await settle(clock, world.disks.attach(diskId, testNodeName));
      const name = simDiskVolumeName(diskId);
      await client.nodes.mutate(
        "",
        testNodeName,
        (draft) => {
          const attached = (draft.status?.volumesAttached ?? []).filter((entry) => entry.name !== name);
          draft.status = { ...draft.status, volumesAttached: [...attached, { name, devicePath }] };
        },
        { subresource: "status" },
      );
      await refreshCachedNode();
      return devicePath;
    },
    async events() {
      await recorder.flush();
      const list = await client.events.list();
      return [...list.items].sort((a, b) => Number(a.metadata?.resourceVersion) - Number(b.metadata?.resourceVersion));
    },
  };
  return env;
}

// ---- Object builders -------------------------------------------------------------------------

interface PodVolumeUse {
  /** The pod volume (`spec.volumes[]`). */
  volume: NonNullable<NonNullable<Pod["spec"]>["volumes"]>[number];
  /** Used as a raw block device instead of a mount. */
  asDevice?: boolean;
}

/** A pod on the test node whose one container uses every volume given. */
export function podUsing(name: string, uses: readonly PodVolumeUse[]): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: testNamespace, name },
    spec: {
      nodeName: testNodeName,
      containers: [
        {
          name: "main",
          image: "busybox",
          volumeMounts: uses
            .filter((use) => use.asDevice !== true)
            .map((use) => ({ name: use.volume.name, mountPath: `/mnt/${use.volume.name}` })),
          volumeDevices: uses
            .filter((use) => use.asDevice === true)
            .map((use) => ({ name: use.volume.name, devicePath: `/dev/${use.volume.name}` })),
        },
      ],
      volumes: uses.map((use) => use.volume),
    },
  };
}

/** A sim-disk PV bound to `claim` (created first, so its uid is known). */
export async function boundSimDiskClaim(
  env: VolumeManagerEnv,
  claimName: string,
  diskId: string,
  volumeMode: "Filesystem" | "Block" = "Filesystem",
): Promise<{ pvc: PersistentVolumeClaim; pv: PersistentVolume }> {
  env.world.disks.createDisk(diskId, 64 << 20);
  const pvName = `pv-${diskId}`;
  const pvc = await env.client.persistentVolumeClaims.create({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { namespace: testNamespace, name: claimName, finalizers: ["kubernetes.io/pvc-protection"] },
    spec: {
      accessModes: ["ReadWriteOnce"],
      volumeName: pvName,
      volumeMode,
      resources: { requests: { storage: "1Gi" } },
    },
  });
  const pv = await env.client.persistentVolumes.create({
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name: pvName },
    spec: {
      accessModes: ["ReadWriteOnce"],
      capacity: { storage: "1Gi" },
      volumeMode,
      claimRef: { namespace: testNamespace, name: claimName, uid: pvc.metadata?.uid ?? "" },
      flexVolume: { driver: "kvol.io/sim-disk", fsType: "ext4", options: { diskId } },
    },
  });
  const bound = await env.client.persistentVolumeClaims.mutate(
    testNamespace,
    claimName,
    (draft) => {
      draft.status = { phase: "Bound" };
    },
    { subresource: "status" },
  );
  return { pvc: bound, pv };
}
