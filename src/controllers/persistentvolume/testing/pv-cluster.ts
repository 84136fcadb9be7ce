/**
 * The fixture the PV controller tests share: a memory store on a VirtualClock, shared informers,
 * the PV controller with a sim-disk provisioner over in-memory disks, optionally the protection
 * controllers, and helpers to create objects and read what a user would see (phases, events).
 */

import type { PersistentVolumeSpec, TopologySelectorTerm } from "kubernetes-types/core/v1.js";
import type { LabelSelector } from "kubernetes-types/meta/v1.js";
import type { Client } from "../../../api/client/client.ts";
import { InProcessClient } from "../../../api/client/in-process-client.ts";
import { newTestApi, type TestApi } from "../../../api/client/testing/test-api.ts";
import { isNotFound } from "../../../api/errors.ts";
import { SharedInformerFactory } from "../../../api/informer/shared-informer-factory.ts";
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from "../../../api/objects.ts";
import type { Validator } from "../../../api/store/kube-store.ts";
import { createMemoryStore } from "../../../api/store/memory-store.ts";
import { DEFAULT_TIMERS, type Timers } from "../../../api/timers.ts";
import type { Controller, ControllerContext } from "../../controller-context.ts";
import { annIsDefaultStorageClass, zoneLabel } from "../annotations.ts";
import { PvProtectionController } from "../protection/pv-protection-controller.ts";
import { PvcProtectionController } from "../protection/pvc-protection-controller.ts";
import type { Provisioner } from "../provisioner.ts";
import { PersistentVolumeController } from "../pv-controller.ts";
import { SimDiskProvisioner } from "../sim-disk-provisioner.ts";
import { ApiFaults } from "./api-faults.ts";
import { MemoryDisks } from "./memory-disks.ts";

const simDiskProvisionerName = "kvol.io/sim-disk";
/** The NFS server of the volumes `persistentVolume` makes. */
export const nfsServerAddress = "10.0.255.2";

interface PvClusterOptions {
  /** Also run the pvc-protection and pv-protection controllers. */
  protection?: boolean;
  /** Provisioners besides the sim-disk one. */
  provisioners?: readonly Provisioner[];
  /** Replace the API's validation (to store objects the API would refuse). */
  validate?: Validator;
  timers?: Partial<Timers>;
}

/** What a user sees of an event: `<type> <reason> <message>`, in the order they were first recorded. */
interface SeenEvent {
  type: string;
  reason: string;
  message: string;
  count: number;
}

export interface PvCluster {
  api: TestApi;
  /** The client the controllers use; API faults injected through `faults` apply to it only. */
  controllerClient: Client;
  faults: ApiFaults;
  /** The controllers' shared informers, e.g. to stop one and leave its cache behind the store. */
  informers: SharedInformerFactory;
  disks: MemoryDisks;
  /** Lets `ms` of virtual time pass with everything it triggers. */
  run(ms?: number): Promise<void>;
  claim(namespace: string, name: string): Promise<PersistentVolumeClaim>;
  volume(name: string): Promise<PersistentVolume>;
  volumeExists(name: string): Promise<boolean>;
  claimExists(namespace: string, name: string): Promise<boolean>;
  /** Events about the object with this kind and name. */
  events(kind: string, name: string): Promise<SeenEvent[]>;
  stop(): Promise<void>;
}

export async function startPvCluster(options: PvClusterOptions = {}): Promise<PvCluster> {
  const api = newTestApi();
  if (options.validate !== undefined) {
    api.store = createMemoryStore({ clock: api.clock, random: api.rng.stream("store"), validate: options.validate });
    api.client = new InProcessClient(api.store);
  }
  const faults = new ApiFaults();
  const controllerClient = faults.wrap(api.client);
  const informers = new SharedInformerFactory(controllerClient, api.clock, {
    resyncPeriodMs: 0,
    rng: api.rng,
    logger: api.logger,
  });
  const context: ControllerContext = {
    client: controllerClient,
    informers,
    clock: api.clock,
    rng: api.rng,
    logger: api.logger,
    timers: { ...DEFAULT_TIMERS, ...options.timers },
  };
  const disks = new MemoryDisks();
  const controllers: Controller[] = [
    new PersistentVolumeController(context, {
      provisioners: [new SimDiskProvisioner(disks), ...(options.provisioners ?? [])],
    }),
  ];
  if (options.protection) controllers.push(new PvcProtectionController(context), new PvProtectionController(context));
  for (const controller of controllers) controller.start();
  informers.start();
  const run = (ms = 0) => api.clock.advanceBy(ms).then(() => undefined);
  await run();
  return {
    api,
    controllerClient,
    faults,
    informers,
    disks,
    run,
    claim: (namespace, name) => api.client.persistentVolumeClaims.get(namespace, name),
    volume: (name) => api.client.persistentVolumes.get("", name),
    volumeExists: (name) => exists(api.client.persistentVolumes.get("", name)),
    claimExists: (namespace, name) => exists(api.client.persistentVolumeClaims.get(namespace, name)),
    events: (kind, name) => eventsAbout(api.client, kind, name),
    stop: async () => {
      await Promise.all(controllers.map((controller) => controller.stop()));
      informers.stop();
    },
  };
}

async function exists(read: Promise<unknown>): Promise<boolean> {
  try {
    await read;
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

async function eventsAbout(client: Client, kind: string, name: string): Promise<SeenEvent[]> {
  const events = (await client.events.list()).items.filter(
    (event) => event.involvedObject.kind === kind && event.involvedObject.name === name,
  );
  events.sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
  return events.map((event) => ({
    type: event.type ?? "",
    reason: event.reason ?? "",
    message: event.message ?? "",
    count: event.count ?? 1,
  }));
}

interface ClassOptions {
  provisioner?: string;
  bindingMode?: "Immediate" | "WaitForFirstConsumer" | null;
  reclaimPolicy?: "Delete" | "Retain" | "Recycle";
  isDefault?: boolean;
  parameters?: Record<string, string>;
  allowedTopologies?: TopologySelectorTerm[];
  mountOptions?: string[];
}

export function storageClass(name: string, options: ClassOptions = {}): StorageClass {
  const bindingMode = options.bindingMode === undefined ? "Immediate" : options.bindingMode;
  return {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: { name, ...(options.isDefault ? { annotations: { [annIsDefaultStorageClass]: "true" } } : {}) },
    provisioner: options.provisioner ?? simDiskProvisionerName,
    ...(bindingMode === null ? {} : { volumeBindingMode: bindingMode }),
    ...(options.reclaimPolicy ? { reclaimPolicy: options.reclaimPolicy } : {}),
    ...(options.parameters ? { parameters: options.parameters } : {}),
    ...(options.allowedTopologies ? { allowedTopologies: options.allowedTopologies } : {}),
    ...(options.mountOptions ? { mountOptions: options.mountOptions } : {}),
  };
}

export interface VolumeOptions {
  capacity?: string;
  accessModes?: string[];
  className?: string;
  reclaimPolicy?: string;
  labels?: Record<string, string>;
  volumeMode?: "Filesystem" | "Block";
  /** Pre-bind to a claim: `namespace/name`, optionally with a uid. */
  claimRef?: { namespace: string; name: string; uid?: string };
  annotations?: Record<string, string>;
  /** The source: an NFS export (the default), a sim-disk by id, or a host path. */
  nfsPath?: string;
  flexDiskId?: string;
  hostPath?: string;
}

function volumeSource(name: string, options: VolumeOptions): PersistentVolumeSpec {
  if (options.flexDiskId !== undefined) {
    return { flexVolume: { driver: simDiskProvisionerName, options: { diskId: options.flexDiskId } } };
  }
  if (options.hostPath !== undefined) return { hostPath: { path: options.hostPath } };
  return { nfs: { server: nfsServerAddress, path: options.nfsPath ?? `/exports/${name}` } };
}

/** A statically created volume (NFS unless told otherwise). */
export function persistentVolume(name: string, options: VolumeOptions = {}): PersistentVolume {
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: {
      name,
      ...(options.labels ? { labels: options.labels } : {}),
      ...(options.annotations ? { annotations: options.annotations } : {}),
    },
    spec: {
      capacity: { storage: options.capacity ?? "1Gi" },
      accessModes: options.accessModes ?? ["ReadWriteOnce"],
      ...volumeSource(name, options),
      ...(options.reclaimPolicy === undefined ? {} : { persistentVolumeReclaimPolicy: options.reclaimPolicy }),
      ...(options.className === undefined ? {} : { storageClassName: options.className }),
      ...(options.volumeMode ? { volumeMode: options.volumeMode } : {}),
      ...(options.claimRef
        ? { claimRef: { kind: "PersistentVolumeClaim", apiVersion: "v1", ...options.claimRef } }
        : {}),
    },
  };
}

interface ClaimOptions {
  request?: string;
  accessModes?: readonly string[];
  /** null leaves storageClassName unset (the default class may be filled in). */
  className?: string | null;
  volumeName?: string;
  selector?: LabelSelector;
  volumeMode?: "Filesystem" | "Block";
  annotations?: Record<string, string>;
}

export function persistentVolumeClaim(
  namespace: string,
  name: string,
  options: ClaimOptions = {},
): PersistentVolumeClaim {
  const className = options.className === undefined ? "" : options.className;
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { namespace, name, ...(options.annotations ? { annotations: options.annotations } : {}) },
    spec: {
      accessModes: [...(options.accessModes ?? ["ReadWriteOnce"])],
      resources: { requests: { storage: options.request ?? "1Gi" } },
      ...(className === null ? {} : { storageClassName: className }),
      ...(options.volumeName ? { volumeName: options.volumeName } : {}),
      ...(options.selector ? { selector: options.selector } : {}),
      ...(options.volumeMode ? { volumeMode: options.volumeMode } : {}),
    },
  };
}

export function node(name: string, zone?: string): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name, ...(zone ? { [zoneLabel]: zone } : {}) } },
  };
}

/** Sets a pod's phase through the status subresource, as its kubelet would. */
export async function setPodPhase(client: Client, pod: Pod, phase: string): Promise<Pod> {
  return client.pods.mutate(
    pod.metadata?.namespace ?? "",
    pod.metadata?.name ?? "",
    (draft) => {
      draft.status = { ...draft.status, phase };
    },
    { subresource: "status" },
  );
}
