/**
 * The fixture the attach/detach controller tests share: a memory store on a VirtualClock, one
 * informer factory, a SimWorld whose disk provider the controller attaches through, and helpers
 * that play the other actors — the scheduler (pods bound to nodes), the PV controller (bound
 * claims), the kubelet (Ready condition, `status.volumesInUse`, container statuses) and an admin
 * (force delete, taints). Nothing but the controller under test runs.
 */
import type {
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  PersistentVolumeSpec,
  Pod,
  Taint,
} from "kubernetes-types/core/v1.js";
import { newTestApi, type TestApi } from "../../../api/client/testing/test-api.ts";
import { SharedInformerFactory } from "../../../api/informer/shared-informer-factory.ts";
import type { Event } from "../../../api/objects.ts";
import { DEFAULT_TIMERS, type Timers } from "../../../api/timers.ts";
import { SimWorld } from "../../../host/sim/sim-world.ts";
import { formatRfc3339 } from "../../../runtime/clock.ts";
import type { ControllerContext } from "../../controller-context.ts";
import { AttachDetachController, type AttachDetachControllerOptions } from "../attach-detach-controller.ts";
import { controllerManagedAttachAnnotation } from "../constants.ts";

export const testNamespace = "shop";
const diskSizeBytes = 64 << 20;

interface DiskVolumeOptions {
  accessModes?: string[];
  namespace?: string;
  /** addDiskVolume: create the provider's disk too (default true). */
  createDisk?: boolean;
}

interface PodOptions {
  namespace?: string;
  /** Container statuses show running (default true): what a kubelet last reported. */
  running?: boolean;
}

export interface AdcTestEnv {
  api: TestApi;
  world: SimWorld;
  context: ControllerContext;
  controller: AttachDetachController;
  /** Starts a new controller on the same API and world (after `stopController`). */
  restartController(options?: AttachDetachControllerOptions): AttachDetachController;
  stopController(): Promise<void>;
  runFor(durationMs: number): Promise<void>;
  /** Runs until `condition` holds, checking after every due instant; returns the virtual time it held. */
  runUntil(condition: () => boolean | Promise<boolean>, maxMs?: number): Promise<number>;
  addNode(name: string, options?: { managed?: boolean }): Promise<Node>;
  /** A sim-disk PV bound to a claim of the same name; returns the PV. */
  addDiskVolume(name: string, diskId: string, options?: DiskVolumeOptions): Promise<PersistentVolume>;
  /** A PV with the given source (csi, rbd, …) bound to a claim of the same name. */
  addBoundVolume(name: string, source: PersistentVolumeSpec, options?: DiskVolumeOptions): Promise<PersistentVolume>;
  addPod(name: string, nodeName: string, claimName: string, options?: PodOptions): Promise<Pod>;
  /** The kubelet's report of what it mounts. */
  setVolumesInUse(nodeName: string, volumes: readonly string[]): Promise<void>;
  setReady(nodeName: string, ready: boolean): Promise<void>;
  addTaint(nodeName: string, taint: Taint): Promise<void>;
  /** `kubectl delete pod --grace-period=0 --force`. */
  forceDeletePod(name: string, namespace?: string): Promise<void>;
  /** Graceful delete: the pod stays, terminating, while nobody confirms. */
  deletePod(name: string, namespace?: string): Promise<void>;
  node(name: string): Promise<Node>;
  volumesAttached(nodeName: string): Promise<string[]>;
  /** `<pod> <type> <reason> <message>` of every event about pods, oldest first. */
  podEvents(): Promise<string[]>;
  stop(): Promise<void>;
}

function readyCondition(ready: boolean, timeMs: number): NonNullable<Node["status"]>["conditions"] {
  const stamp = formatRfc3339(timeMs);
  return [{ type: "Ready", status: ready ? "True" : "Unknown", lastHeartbeatTime: stamp, lastTransitionTime: stamp }];
}

/** Event names end in the recording instant in hex nanoseconds: their creation order. */
function eventSequence(event: Event): bigint {
  const name = event.metadata?.name ?? "";
  return BigInt(`0x${name.slice(name.lastIndexOf(".") + 1)}`);
}

export async function startAdcTestEnv(
  controllerOptions: AttachDetachControllerOptions = {},
  timerOverrides: Partial<Timers> = {},
): Promise<AdcTestEnv> {
  const api = newTestApi();
  const { client, clock } = api;
  const world = new SimWorld(clock, api.rng.stream("world"));
  const informers = new SharedInformerFactory(client, clock, { resyncPeriodMs: 0, rng: api.rng, logger: api.logger });
  const context: ControllerContext = {
    client,
    informers,
    clock,
    rng: api.rng,
    logger: api.logger,
    timers: { ...DEFAULT_TIMERS, ...timerOverrides },
  };
  const newController = (options: AttachDetachControllerOptions): AttachDetachController =>
    new AttachDetachController(context, { simDiskProvider: world.disks, ...options });
  const env: AdcTestEnv = {
    api,
    world,
    context,
    controller: newController(controllerOptions),
    restartController(options = controllerOptions) {
      env.controller = newController(options);
      env.controller.start();
      return env.controller;
    },
    stopController: () => env.controller.stop(),
    runFor: async (durationMs) => {
      await clock.advanceBy(durationMs);
    },
    async runUntil(condition, maxMs = 3_600_000) {
      const deadline = clock.now() + maxMs;
      for (;;) {
        await clock.advanceBy(0);
        if (await condition()) return clock.now();
        const next = clock.nextDueTime();
        if (next === undefined || next > deadline)
          throw new Error(`runUntil: condition did not hold within ${maxMs} ms`);
        await clock.advanceTo(next);
      }
    },
    async addNode(name, options = {}) {
      world.addNode(name);
      const managed = options.managed ?? true;
      const created = await client.nodes.create({
        apiVersion: "v1",
        kind: "Node",
        metadata: { name, ...(managed ? { annotations: { [controllerManagedAttachAnnotation]: "true" } } : {}) },
      });
      await env.setReady(name, true);
      return created;
    },
    async addDiskVolume(name, diskId, options = {}) {
      if (options.createDisk ?? true) world.disks.createDisk(diskId, diskSizeBytes);
      const source = { flexVolume: { driver: "kvol.io/sim-disk", fsType: "ext4", options: { diskId } } };
      return env.addBoundVolume(name, source, options);
    },
    async addBoundVolume(name, source, options = {}) {
      const namespace = options.namespace ?? testNamespace;
      const accessModes = options.accessModes ?? ["ReadWriteOnce"];
      const claim: PersistentVolumeClaim = await client.persistentVolumeClaims.create({
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { namespace, name },
        spec: { accessModes, resources: { requests: { storage: "1Gi" } }, storageClassName: "", volumeName: name },
      });
      const pv = await client.persistentVolumes.create({
        apiVersion: "v1",
        kind: "PersistentVolume",
        metadata: { name },
        spec: {
          capacity: { storage: "1Gi" },
          accessModes,
          ...source,
          claimRef: {
            kind: "PersistentVolumeClaim",
            apiVersion: "v1",
            namespace,
            name,
            uid: claim.metadata?.uid ?? "",
          },
        },
      });
      await client.persistentVolumeClaims.mutate(
        namespace,
        name,
        (draft) => {
          draft.status = { phase: "Bound", accessModes, capacity: { storage: "1Gi" } };
        },
        { subresource: "status" },
      );
      return pv;
    },
    async addPod(name, nodeName, claimName, options = {}) {
      const namespace = options.namespace ?? testNamespace;
      await client.pods.create({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { namespace, name },
        spec: {
          nodeName,
          containers: [{ name: "main", image: "busybox" }],
          volumes: [{ name: "data", persistentVolumeClaim: { claimName } }],
        },
      });
      const running = options.running ?? true;
      return client.pods.mutate(
        namespace,
        name,
        (draft) => {
          draft.status = {
            phase: "Running",
            containerStatuses: running
              ? [{ name: "main", image: "busybox", imageID: "", ready: true, restartCount: 0, state: { running: {} } }]
              : [],
          };
        },
        { subresource: "status" },
      );
    },
    async setVolumesInUse(nodeName, volumes) {
      await client.nodes.mutate(
        "",
        nodeName,
        (draft) => {
          draft.status = { ...draft.status, volumesInUse: [...volumes] };
        },
        { subresource: "status" },
      );
    },
    async setReady(nodeName, ready) {
      await client.nodes.mutate(
        "",
        nodeName,
        (draft) => {
          draft.status = { ...draft.status, conditions: readyCondition(ready, clock.now()) };
        },
        { subresource: "status" },
      );
    },
    async addTaint(nodeName, taint) {
      await client.nodes.mutate("", nodeName, (draft) => {
        draft.spec = { ...draft.spec, taints: [...(draft.spec?.taints ?? []), taint] };
      });
    },
    async forceDeletePod(name, namespace = testNamespace) {
      await client.pods.delete(namespace, name, { gracePeriodSeconds: 0 });
    },
    async deletePod(name, namespace = testNamespace) {
      await client.pods.delete(namespace, name, { gracePeriodSeconds: 30 });
    },
    node: (name) => client.nodes.get("", name),
    async volumesAttached(nodeName) {
      return ((await client.nodes.get("", nodeName)).status?.volumesAttached ?? []).map((entry) => entry.name);
    },
    async podEvents() {
      const events = (await client.events.list()).items as Event[];
      return events
        .filter((event) => event.involvedObject?.kind === "Pod")
        .sort((a, b) => (eventSequence(a) < eventSequence(b) ? -1 : 1))
        .map((event) => `${event.involvedObject?.name} ${event.type} ${event.reason} ${event.message}`);
    },
    async stop() {
      await env.controller.stop();
      informers.stop();
    },
  };
  env.controller.start();
  informers.start();
  await clock.advanceBy(0);
  return env;
}
