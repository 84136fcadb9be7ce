/**
 * The fixture the sidecar tests share: a memory store on a VirtualClock, shared informers,
 * mock.csi.kvol.io reached in-process (every request encoded and decoded with csi.proto), the
 * external-provisioner and external-attacher for it, and the real PV controller (with the
 * protection controllers) to bind what the provisioner creates. Helpers create the objects the
 * other actors would (classes, claims, nodes with their CSINode, the ADC's VolumeAttachments) and
 * read what a user would see.
 */
import type { TopologySelectorTerm } from "kubernetes-types/core/v1.js";
import { newTestApi, type TestApi } from "../../../api/client/testing/test-api.ts";
import { isNotFound } from "../../../api/errors.ts";
import { SharedInformerFactory } from "../../../api/informer/shared-informer-factory.ts";
import type {
  Event,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  StorageClass,
  VolumeAttachment,
} from "../../../api/objects.ts";
import { DEFAULT_TIMERS, type Timers } from "../../../api/timers.ts";
import { MockDriver, type MockDriverOptions } from "../../../csi/drivers/mock/mock-driver.ts";
import { connectCsiInProcess } from "../../../csi/grpc/in-process.ts";
import { volumeAttachmentName } from "../../../volume/plugins/csi/csi-attacher.ts";
import type { Controller, ControllerContext } from "../../controller-context.ts";
import { PvProtectionController } from "../../persistentvolume/protection/pv-protection-controller.ts";
import { PvcProtectionController } from "../../persistentvolume/protection/pvc-protection-controller.ts";
import { PersistentVolumeController } from "../../persistentvolume/pv-controller.ts";
import { ExternalAttacher } from "../attacher.ts";
import { ExternalProvisioner } from "../provisioner.ts";
import type { ProvisionerTopologyOptions } from "../provisioner-state.ts";
export const testNamespace = "shop";
export const zoneKey = "topology.mock.csi.kvol.io/zone";

interface SidecarEnvOptions {
  /** Options of mock.csi.kvol.io besides its clock. */
  mock?: Omit<MockDriverOptions, "clock">;
  timers?: Partial<Timers>;
  topology?: Partial<ProvisionerTopologyOptions>;
  /** Which sidecars run; both by default. */
  provisioner?: boolean;
  attacher?: boolean;
}

interface ClassOptions {
  bindingMode?: "Immediate" | "WaitForFirstConsumer";
  reclaimPolicy?: "Delete" | "Retain";
  parameters?: Record<string, string>;
  mountOptions?: string[];
  allowedTopologies?: TopologySelectorTerm[];
}

interface ClaimOptions {
  className?: string;
  request?: string;
  accessModes?: string[];
  volumeMode?: "Filesystem" | "Block";
}

interface NodeOptions {
  labels?: Record<string, string>;
  /** The driver's entry in the node's CSINode; none when undefined. */
  csiNode?: { nodeId: string; topologyKeys?: string[] };
}

/** What a user sees of an event. */
interface SeenEvent {
  type: string;
  reason: string;
  message: string;
  source: string;
}

export interface SidecarEnv {
  api: TestApi;
  mock: MockDriver;
  context: ControllerContext;
  provisioner: ExternalProvisioner | undefined;
  attacher: ExternalAttacher | undefined;
  run(ms?: number): Promise<void>;
  /** Runs until `condition` holds, checking after every due instant; returns the virtual time it took. */
  runUntil(condition: () => boolean | Promise<boolean>, maxMs?: number): Promise<number>;
  addClass(name: string, options?: ClassOptions): Promise<StorageClass>;
  addClaim(name: string, options?: ClaimOptions): Promise<PersistentVolumeClaim>;
  addNode(name: string, options?: NodeOptions): Promise<Node>;
  /** What the scheduler does for a WaitForFirstConsumer claim. */
  selectNode(claimName: string, nodeName: string): Promise<void>;
  /** A bound CSI PV of the driver, as if provisioned earlier (for attacher tests). */
  addCsiVolume(
    name: string,
    volumeHandle: string,
    extra?: Partial<PersistentVolume["spec"]>,
  ): Promise<PersistentVolume>;
  /** The VolumeAttachment the attach/detach controller would create; returns its name. */
  addAttachment(pvName: string, nodeName: string, volumeHandle: string): Promise<string>;
  claim(name: string): Promise<PersistentVolumeClaim>;
  volume(name: string): Promise<PersistentVolume | undefined>;
  attachment(name: string): Promise<VolumeAttachment | undefined>;
  /** Events about the object with this kind and name, in the order they were first recorded. */
  events(kind: string, name: string): Promise<SeenEvent[]>;
  stop(): Promise<void>;
}

export async function startSidecarEnv(options: SidecarEnvOptions = {}): Promise<SidecarEnv> {
  const api = newTestApi();
  const { client, clock } = api;
  const informers = new SharedInformerFactory(client, clock, { resyncPeriodMs: 0, rng: api.rng, logger: api.logger });
  const context: ControllerContext = {
    client,
    informers,
    clock,
    rng: api.rng,
    logger: api.logger,
    timers: { ...DEFAULT_TIMERS, ...options.timers },
  };
  // The node ids the mock's ControllerPublishVolume knows: those of the CSINodes this env adds.
  const knownNodeIds = new Set<string>();
  const mock = new MockDriver({ clock, isKnownNode: (id) => knownNodeIds.has(id), ...options.mock });
  const driver = connectCsiInProcess(mock.implementations());
  const driverName = mock.name;
  const provisioner =
    options.provisioner === false
      ? undefined
      : new ExternalProvisioner(context, {
          driverName,
          driver,
          hostName: "csi-mock-0",
          ...(options.topology ? { topology: options.topology } : {}),
        });
  const attacher = options.attacher === false ? undefined : new ExternalAttacher(context, { driverName, driver });
  const controllers: Controller[] = [
    new PersistentVolumeController(context),
    new PvcProtectionController(context),
    new PvProtectionController(context),
    ...(provisioner ? [provisioner] : []),
    ...(attacher ? [attacher] : []),
  ];
  for (const controller of controllers) controller.start();
  informers.start();
  const run = async (ms = 0) => {
    await clock.advanceBy(ms);
  };
  await run();
  const env: SidecarEnv = {
    api,
    mock,
    context,
    provisioner,
    attacher,
    run,
    async runUntil(condition, maxMs = 3_600_000) {
      const start = clock.now();
      const deadline = start + maxMs;
      for (;;) {
        await clock.advanceBy(0);
        if (await condition()) return clock.now() - start;
        const next = clock.nextDueTime();
        if (next === undefined || next > deadline)
          throw new Error(`runUntil: condition did not hold within ${maxMs} ms`);
        await clock.advanceTo(next);
      }
    },
    addClass: (name, classOptions = {}) =>
      client.storageClasses.create({
        apiVersion: "storage.k8s.io/v1",
        kind: "StorageClass",
        metadata: { name },
        provisioner: driverName,
        volumeBindingMode: classOptions.bindingMode ?? "Immediate",
        reclaimPolicy: classOptions.reclaimPolicy ?? "Delete",
        ...(classOptions.parameters ? { parameters: classOptions.parameters } : {}),
        ...(classOptions.mountOptions ? { mountOptions: classOptions.mountOptions } : {}),
        ...(classOptions.allowedTopologies ? { allowedTopologies: classOptions.allowedTopologies } : {}),
      }),
    addClaim: (name, claimOptions = {}) =>
      client.persistentVolumeClaims.create({
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { namespace: testNamespace, name },
        spec: {
          accessModes: claimOptions.accessModes ?? ["ReadWriteOnce"],
          resources: { requests: { storage: claimOptions.request ?? "1Gi" } },
          storageClassName: claimOptions.className ?? "fast",
          ...(claimOptions.volumeMode ? { volumeMode: claimOptions.volumeMode } : {}),
        },
      }),
    async addNode(name, nodeOptions = {}) {
      const node = await client.nodes.create({
        apiVersion: "v1",
        kind: "Node",
        metadata: { name, labels: { "kubernetes.io/hostname": name, ...nodeOptions.labels } },
      });
      const csi = nodeOptions.csiNode;
      if (csi !== undefined) knownNodeIds.add(csi.nodeId);
      await client.csiNodes.create({
        apiVersion: "storage.k8s.io/v1",
        kind: "CSINode",
        metadata: { name },
        spec: {
          drivers: csi
            ? [
                {
                  name: driverName,
                  nodeID: csi.nodeId,
                  ...(csi.topologyKeys ? { topologyKeys: csi.topologyKeys } : {}),
                },
              ]
            : [],
        },
      });
      return node;
    },
    async selectNode(claimName, nodeName) {
      await client.persistentVolumeClaims.mutate(testNamespace, claimName, (draft) => {
        draft.metadata = {
          ...draft.metadata,
          annotations: { ...draft.metadata?.annotations, "volume.kubernetes.io/selected-node": nodeName },
        };
      });
    },
    async addCsiVolume(name, volumeHandle, extra = {}) {
      return client.persistentVolumes.create({
        apiVersion: "v1",
        kind: "PersistentVolume",
        metadata: { name },
        spec: {
          capacity: { storage: "1Gi" },
          accessModes: ["ReadWriteOnce"],
          persistentVolumeReclaimPolicy: "Retain",
          csi: { driver: driverName, volumeHandle, fsType: "ext4" },
          ...extra,
        },
      });
    },
    async addAttachment(pvName, nodeName, volumeHandle) {
      const name = volumeAttachmentName(volumeHandle, driverName, nodeName);
      await client.volumeAttachments.create({
        apiVersion: "storage.k8s.io/v1",
        kind: "VolumeAttachment",
        metadata: { name },
        spec: { attacher: driverName, nodeName, source: { persistentVolumeName: pvName } },
      });
      return name;
    },
    claim: (name) => client.persistentVolumeClaims.get(testNamespace, name),
    volume: (name) => orUndefined(client.persistentVolumes.get("", name)),
    attachment: (name) => orUndefined(client.volumeAttachments.get("", name)),
    events: async (kind, name) => {
      const events = (await client.events.list()).items.filter(
        (event) => event.involvedObject.kind === kind && event.involvedObject.name === name,
      );
      events.sort((a, b) => (eventSequence(a) < eventSequence(b) ? -1 : 1));
      return events.map((event) => ({
        type: event.type ?? "",
        reason: event.reason ?? "",
        message: event.message ?? "",
        source: event.source?.component ?? "",
      }));
    },
    async stop() {
      const stopping = Promise.all(controllers.map((controller) => controller.stop()));
      await clock.advanceBy(60_000);
      await stopping;
      informers.stop();
    },
  };
  return env;
}

async function orUndefined<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Event names end in the recording instant in hex nanoseconds: their creation order. */
function eventSequence(event: Event): bigint {
  const name = event.metadata?.name ?? "";
  return BigInt(`0x${name.slice(name.lastIndexOf(".") + 1)}`);
}
