/**
 * Every control-plane controller a simulated cluster runs, in the order they start. Adding a
 * controller is one line here; `ClusterOptions.controllers` picks a subset by name.
 */

import { AttachDetachController } from "../controllers/attachdetach/attach-detach-controller.ts";
import type { MultiAttachPolicy } from "../controllers/attachdetach/reconciler/multi-attach-policy.ts";
import type { Controller, ControllerContext } from "../controllers/controller-context.ts";
import {
  type CsiControllerDriver,
  csiSnapshotterGroupName,
  csiSnapshotters,
  externalAttacherGroupName,
  externalAttachers,
  externalProvisionerGroupName,
  externalProvisioners,
  externalResizerGroupName,
  externalResizers,
} from "../controllers/csi/sidecar-group.ts";
import {
  EphemeralVolumeController,
  ephemeralVolumeControllerName,
} from "../controllers/ephemeral/ephemeral-volume-controller.ts";
import { namespaceControllerName } from "../controllers/namespace/constants.ts";
import { NamespaceController } from "../controllers/namespace/namespace-controller.ts";
import { nodeFencingControllerName } from "../controllers/nodefencing/constants.ts";
import { NodeFencingController } from "../controllers/nodefencing/node-fencing-controller.ts";
import type { StorageFencer } from "../controllers/nodefencing/storage-fencer.ts";
import { NodeLifecycleController } from "../controllers/nodelifecycle/node-lifecycle-controller.ts";
import { PodGcController } from "../controllers/nodelifecycle/pod-gc.ts";
import { TaintEvictionController } from "../controllers/nodelifecycle/taint-eviction-controller.ts";
import { PvProtectionController } from "../controllers/persistentvolume/protection/pv-protection-controller.ts";
import { PvcProtectionController } from "../controllers/persistentvolume/protection/pvc-protection-controller.ts";
import type { Provisioner } from "../controllers/persistentvolume/provisioner.ts";
import { PersistentVolumeController } from "../controllers/persistentvolume/pv-controller.ts";
import { SimDiskProvisioner } from "../controllers/persistentvolume/sim-disk-provisioner.ts";
import { Scheduler } from "../controllers/scheduler/scheduler.ts";
import { ServiceAccountsController } from "../controllers/serviceaccount/serviceaccounts-controller.ts";
import { SnapshotController, snapshotControllerName } from "../controllers/snapshot/snapshot-controller.ts";
import { ExpandController, expandControllerName } from "../controllers/volumeexpand/expand-controller.ts";
import { DeploymentController } from "../controllers/workloads/deployment-controller.ts";
import { GarbageCollector } from "../controllers/workloads/garbage-collector.ts";
import { JobController } from "../controllers/workloads/job-controller.ts";
import { ReplicaSetController } from "../controllers/workloads/replicaset-controller.ts";
import { StatefulSetController } from "../controllers/workloads/statefulset-controller.ts";
import type { SimWorld } from "../host/sim/sim-world.ts";
import { simStorageFencers } from "./sim-storage-fencer.ts";

/** What a controller may be built from. */
export interface ControllerWiring {
  context: ControllerContext;
  /** The simulated world: cloud disks, storage servers, node hosts. */
  world: SimWorld;
  /** Provisioners besides the built-in sim-disk one. */
  provisioners: readonly Provisioner[];
  /** CSI drivers' controller endpoints; each gets an external-provisioner and an external-attacher. */
  csiDrivers?: readonly CsiControllerDriver[];
  /** The attach/detach controller's Multi-Attach policy (ClusterOptions); Kubernetes' when absent. */
  multiAttachPolicy?: MultiAttachPolicy;
  /** Node fencing (`--fence-after`, `ClusterOptions.fencing`): the cluster-wide grace and extra fencers. */
  fencing?: FencingWiring;
}

export interface FencingWiring {
  /** Fence every node holding volumes after this much silence; absent, only StorageClasses that ask. */
  fenceAfterMs?: number;
  /** Fencers besides the simulated world's (a real disk backend's loop-device fence). */
  fencers?: readonly StorageFencer[];
}

export interface ControllerEntry {
  /** The controller's component name (its events' source). */
  name: string;
  create: (wiring: ControllerWiring) => Controller;
}

export const clusterControllers: readonly ControllerEntry[] = [
  {
    name: "persistentvolume-controller",
    create: (w) =>
      new PersistentVolumeController(w.context, {
        provisioners: [new SimDiskProvisioner(w.world.disks), ...w.provisioners],
      }),
  },
  { name: "pvc-protection-controller", create: (w) => new PvcProtectionController(w.context) },
  { name: "pv-protection-controller", create: (w) => new PvProtectionController(w.context) },
  { name: ephemeralVolumeControllerName, create: (w) => new EphemeralVolumeController(w.context) },
  {
    name: "attachdetach-controller",
    create: (w) =>
      new AttachDetachController(w.context, {
        simDiskProvider: w.world.disks,
        ...(w.multiAttachPolicy === undefined ? {} : { multiAttachPolicy: w.multiAttachPolicy }),
      }),
  },
  { name: externalProvisionerGroupName, create: (w) => externalProvisioners(w.context, w.csiDrivers ?? []) },
  { name: externalAttacherGroupName, create: (w) => externalAttachers(w.context, w.csiDrivers ?? []) },
  { name: csiSnapshotterGroupName, create: (w) => csiSnapshotters(w.context, w.csiDrivers ?? []) },
  { name: snapshotControllerName, create: (w) => new SnapshotController(w.context) },
  { name: externalResizerGroupName, create: (w) => externalResizers(w.context, w.csiDrivers ?? []) },
  { name: expandControllerName, create: (w) => new ExpandController(w.context) },
  { name: "default-scheduler", create: (w) => new Scheduler(w.context) },
  { name: "statefulset-controller", create: (w) => new StatefulSetController(w.context) },
  { name: "replicaset-controller", create: (w) => new ReplicaSetController(w.context) },
  { name: "deployment-controller", create: (w) => new DeploymentController(w.context) },
  { name: "job-controller", create: (w) => new JobController(w.context) },
  { name: "garbage-collector-controller", create: (w) => new GarbageCollector(w.context) },
  { name: "node-lifecycle-controller", create: (w) => new NodeLifecycleController(w.context) },
  { name: "taint-eviction-controller", create: (w) => new TaintEvictionController(w.context) },
  { name: "pod-garbage-collector", create: (w) => new PodGcController(w.context) },
  {
    name: nodeFencingControllerName,
    create: (w) =>
      new NodeFencingController(w.context, {
        ...(w.fencing?.fenceAfterMs === undefined ? {} : { fenceAfterMs: w.fencing.fenceAfterMs }),
        fencers: [...(w.fencing?.fencers ?? []), ...simStorageFencers(w.world)],
      }),
  },
  { name: namespaceControllerName, create: (w) => new NamespaceController(w.context) },
  { name: "serviceaccount-controller", create: (w) => new ServiceAccountsController(w.context) },
];

/**
 * The controllers kube-controller-manager runs, restarted together by the `controller-manager-restart`
 * fault; the scheduler is its own process and the external provisioner and attacher run as sidecars
 * of the CSI driver's controller.
 */
export const kubeControllerManagerNames: ReadonlySet<string> = new Set([
  "persistentvolume-controller",
  "pvc-protection-controller",
  "pv-protection-controller",
  ephemeralVolumeControllerName,
  "attachdetach-controller",
  expandControllerName,
  "statefulset-controller",
  "replicaset-controller",
  "deployment-controller",
  "job-controller",
  "garbage-collector-controller",
  "node-lifecycle-controller",
  "taint-eviction-controller",
  "pod-garbage-collector",
  nodeFencingControllerName,
  namespaceControllerName,
  "serviceaccount-controller",
]);

/** The entries named in `names` (all when undefined); an unknown name is an error that lists the known ones. */
export function selectControllers(names: readonly string[] | undefined): ControllerEntry[] {
  if (names === undefined) return [...clusterControllers];
  const known = new Map(clusterControllers.map((entry) => [entry.name, entry]));
  for (const name of names) {
    if (!known.has(name)) {
      throw new Error(`unknown controller "${name}"; known controllers: ${[...known.keys()].join(", ")}`);
    }
  }
  return clusterControllers.filter((entry) => names.includes(entry.name));
}
