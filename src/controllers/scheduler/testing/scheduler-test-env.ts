/**
 * The fixture the scheduler tests share: a memory store on a VirtualClock, one informer factory,
 * the scheduler, hand-made nodes, claims, volumes and classes, and a stand-in for the PV controller
 * and a provisioner that completes what the scheduler asks of them (bind a volume whose claimRef it
 * wrote; provision on the node named by `volume.kubernetes.io/selected-node`), as those controllers
 * would write it.
 */
import type { Taint, Toleration } from "kubernetes-types/core/v1.js";
import { newTestApi, type TestApi } from "../../../api/client/testing/test-api.ts";
import { SharedInformerFactory } from "../../../api/informer/shared-informer-factory.ts";
import type { Event, Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from "../../../api/objects.ts";
import { DEFAULT_TIMERS, type Timers } from "../../../api/timers.ts";
import type { Timer } from "../../../runtime/clock.ts";
import type { ControllerContext } from "../../controller-context.ts";
import { annBindCompleted, annSelectedNode } from "../constants.ts";
import { Scheduler } from "../scheduler.ts";

export const hostnameLabel = "kubernetes.io/hostname";
export const zoneLabel = "topology.kubernetes.io/zone";
/** How often the stand-in PV controller looks for work. */
const standInVolumeControllerPeriodMs = 500;

interface NodeOptions {
  labels?: Record<string, string>;
  taints?: Taint[];
  unschedulable?: boolean;
  /** The Ready condition's status; "True" by default. */
  ready?: "True" | "False" | "Unknown";
}

interface PodOptions {
  claims?: string[];
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  requiredNodeTerms?: NonNullable<
    NonNullable<NonNullable<Pod["spec"]>["affinity"]>["nodeAffinity"]
  >["requiredDuringSchedulingIgnoredDuringExecution"];
}

interface VolumeOptions {
  className?: string;
  capacity?: string;
  /** The node the volume lives on (a local volume): required node affinity on the hostname label. */
  onNode?: string;
  /** Already bound to this claim (`namespace/name`). */
  boundTo?: PersistentVolumeClaim;
}

export interface SchedulerTestEnv {
  api: TestApi;
  context: ControllerContext;
  scheduler: Scheduler;
  runFor(durationMs: number): Promise<void>;
  addNode(name: string, options?: NodeOptions): Promise<Node>;
  addPod(name: string, options?: PodOptions): Promise<Pod>;
  addClass(
    name: string,
    mode: "Immediate" | "WaitForFirstConsumer",
    extra?: Partial<StorageClass>,
  ): Promise<StorageClass>;
  addClaim(name: string, className: string, size?: string): Promise<PersistentVolumeClaim>;
  addVolume(name: string, options?: VolumeOptions): Promise<PersistentVolume>;
  /** Binds claim and volume as the PV controller's bind() leaves them. */
  bindClaim(claimName: string, volumeName: string): Promise<void>;
  /** Starts the stand-in PV controller and provisioner. */
  actAsVolumeControllers(): void;
  nodeOf(podName: string): Promise<string | undefined>;
  claim(name: string): Promise<PersistentVolumeClaim>;
  /** `reason: message` of every Event about `objectName`, oldest first. */
  eventsAbout(objectName: string): Promise<string[]>;
  stop(): Promise<void>;
}

export const testNamespace = "shop";

function volumeOnNode(nodeName: string): NonNullable<PersistentVolume["spec"]>["nodeAffinity"] {
  return {
    required: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: hostnameLabel, operator: "In", values: [nodeName] }] }],
    },
  };
}

export async function startSchedulerTestEnv(timers: Partial<Timers> = {}): Promise<SchedulerTestEnv> {
  const api = newTestApi();
  const { client, clock } = api;
  const informers = new SharedInformerFactory(client, clock, { resyncPeriodMs: 0, rng: api.rng, logger: api.logger });
  const context: ControllerContext = {
    client,
    informers,
    clock,
    rng: api.rng,
    logger: api.logger,
    timers: { ...DEFAULT_TIMERS, ...timers },
  };
  const scheduler = new Scheduler(context);
  scheduler.start();
  informers.start();
  let standIn: Timer | undefined;

  const env: SchedulerTestEnv = {
    api,
    context,
    scheduler,
    runFor: async (durationMs) => {
      await clock.advanceBy(durationMs);
    },
    addNode: (name, options = {}) =>
      client.nodes.create({
        apiVersion: "v1",
        kind: "Node",
        metadata: { name, labels: { [hostnameLabel]: name, ...options.labels } },
        spec: {
          ...(options.taints ? { taints: options.taints } : {}),
          ...(options.unschedulable ? { unschedulable: true } : {}),
        },
        status: { conditions: [{ type: "Ready", status: options.ready ?? "True", reason: "KubeletReady" }] },
      }),
    addPod: (name, options = {}) =>
      client.pods.create({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { namespace: testNamespace, name },
        spec: {
          containers: [{ name: "main", image: "busybox" }],
          ...(options.nodeName ? { nodeName: options.nodeName } : {}),
          ...(options.nodeSelector ? { nodeSelector: options.nodeSelector } : {}),
          ...(options.tolerations ? { tolerations: options.tolerations } : {}),
          ...(options.requiredNodeTerms
            ? {
                affinity: {
                  nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: options.requiredNodeTerms },
                },
              }
            : {}),
          ...(options.claims
            ? {
                volumes: options.claims.map((claimName, index) => ({
                  name: `data-${index}`,
                  persistentVolumeClaim: { claimName },
                })),
              }
            : {}),
        },
      }),
    addClass: (name, mode, extra = {}) =>
      client.storageClasses.create({
        apiVersion: "storage.k8s.io/v1",
        kind: "StorageClass",
        metadata: { name },
        provisioner: "example.com/disk",
        volumeBindingMode: mode,
        ...extra,
      }),
    addClaim: (name, className, size = "1Gi") =>
      client.persistentVolumeClaims.create({
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { namespace: testNamespace, name },
        spec: {
          accessModes: ["ReadWriteOnce"],
          resources: { requests: { storage: size } },
          storageClassName: className,
        },
      }),
    addVolume: async (name, options = {}) => {
      const created = await client.persistentVolumes.create({
        apiVersion: "v1",
        kind: "PersistentVolume",
        metadata: { name },
        spec: {
          capacity: { storage: options.capacity ?? "1Gi" },
          accessModes: ["ReadWriteOnce"],
          storageClassName: options.className ?? "",
          persistentVolumeReclaimPolicy: "Retain",
          local: { path: `/mnt/disks/${name}` },
          nodeAffinity: volumeOnNode(options.onNode ?? "node-1"),
          ...(options.boundTo
            ? {
                claimRef: {
                  kind: "PersistentVolumeClaim",
                  apiVersion: "v1",
                  namespace: options.boundTo.metadata?.namespace ?? "",
                  name: options.boundTo.metadata?.name ?? "",
                  uid: options.boundTo.metadata?.uid ?? "",
                },
              }
            : {}),
        },
      });
      const phase = options.boundTo ? "Bound" : "Available";
      return client.persistentVolumes.mutate(
        "",
        created.metadata?.name ?? "",
        (draft) => {
          draft.status = { ...draft.status, phase };
        },
        { subresource: "status" },
      );
    },
    bindClaim: async (claimName, volumeName) => {
      await client.persistentVolumeClaims.mutate(testNamespace, claimName, (draft) => {
        draft.spec = { ...draft.spec, volumeName };
        draft.metadata = {
          ...draft.metadata,
          annotations: { ...draft.metadata?.annotations, [annBindCompleted]: "yes" },
        };
      });
      await client.persistentVolumeClaims.mutate(
        testNamespace,
        claimName,
        (draft) => {
          draft.status = { ...draft.status, phase: "Bound" };
        },
        { subresource: "status" },
      );
      await client.persistentVolumes.mutate(
        "",
        volumeName,
        (draft) => {
          draft.status = { ...draft.status, phase: "Bound" };
        },
        { subresource: "status" },
      );
    },
    actAsVolumeControllers: () => {
      standIn ??= clock.every(standInVolumeControllerPeriodMs, () => completeVolumeWork(env));
    },
    nodeOf: async (podName) => (await client.pods.get(testNamespace, podName)).spec?.nodeName,
    claim: (name) => client.persistentVolumeClaims.get(testNamespace, name),
    eventsAbout: async (objectName) => {
      const events: Event[] = (await client.events.list()).items.filter(
        (event) => event.involvedObject.name === objectName,
      );
      events.sort((a, b) => (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""));
      return events.map((event) => `${event.reason}: ${event.message}`);
    },
    stop: async () => {
      standIn?.cancel();
      await scheduler.stop();
      informers.stop();
    },
  };
  return env;
}

/** One pass of the stand-in PV controller and provisioner. */
async function completeVolumeWork(env: SchedulerTestEnv): Promise<void> {
  const { client } = env.api;
  const claims = (await client.persistentVolumeClaims.list({ namespace: testNamespace })).items;
  const volumes = (await client.persistentVolumes.list()).items;
  for (const claim of claims) {
    if (claim.spec?.volumeName) continue;
    const name = claim.metadata?.name ?? "";
    const reserved = volumes.find(
      (volume) => volume.spec?.claimRef?.name === name && volume.spec.claimRef.uid === claim.metadata?.uid,
    );
    if (reserved !== undefined) {
      await env.bindClaim(name, reserved.metadata?.name ?? "");
      continue;
    }
    const selectedNode = claim.metadata?.annotations?.[annSelectedNode];
    if (selectedNode === undefined) continue;
    const provisioned = await env.addVolume(`pvc-${claim.metadata?.uid ?? name}`, {
      className: claim.spec?.storageClassName ?? "",
      capacity: claim.spec?.resources?.requests?.storage ?? "1Gi",
      onNode: selectedNode,
      boundTo: claim,
    });
    await env.bindClaim(name, provisioned.metadata?.name ?? "");
  }
}
