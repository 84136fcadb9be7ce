/**
 * Faults of the cloud provider's disks: slow or failing attach and detach, and a disk mkfs cannot
 * format. They stay with the disk, so they can be set before the disk is attached or formatted.
 */

import type { Cluster } from "../../cmd/cluster.ts";
import type { DiskFaults } from "../../host/sim/world/disk-provider.ts";
import { diskTargetParams, resolveDiskId } from "./disk-target.ts";
import type { FaultDefinition, FaultParams } from "./fault.ts";
import { FaultArgs } from "./fault-args.ts";
import { operationBackoffCap, podAttachAndMountTimeout } from "./reaction-timings.ts";

/** The delay random exploration gives slow attaches and detaches. */
const exploredDiskDelay = "90s";

const delayParam = {
  name: "delay",
  type: "duration",
  required: true,
  description: "How long each call takes before it completes.",
} as const;

const messageParam = {
  name: "message",
  type: "string",
  required: false,
  default: "the cloud provider returned an internal error; retry later",
  description: "The provider's error text.",
} as const;

type DiskFaultKey = keyof DiskFaults;

/** Sets one of the disk's faults, keeping the others. */
function setDiskFault(cluster: Cluster, diskId: string, key: DiskFaultKey, value: number | string | undefined): void {
  const faults: DiskFaults = { ...cluster.world.disks.disk(diskId).faults };
  if (value === undefined) delete faults[key];
  else Object.assign(faults, { [key]: value });
  cluster.world.disks.setFaults(diskId, faults);
}

async function diskTargets(cluster: Cluster, extra: FaultParams = {}): Promise<FaultParams[]> {
  return cluster.world.disks.ids().map((disk) => ({ disk, ...extra }));
}

/** A disk fault whose value is one parameter: `delay` for latencies, `message` for errors. */
function diskProviderFault(options: {
  name: string;
  key: DiskFaultKey;
  models: string;
  kubernetesReaction: string;
  healing: string;
  valueParam: typeof delayParam | typeof messageParam;
}): FaultDefinition {
  const { key, valueParam } = options;
  const isDelay = valueParam.name === "delay";
  const fault: FaultDefinition = {
    name: options.name,
    models: options.models,
    kubernetesReaction: options.kubernetesReaction,
    healing: options.healing,
    params: [...diskTargetParams, valueParam],
    async inject(cluster, params) {
      const args = new FaultArgs(fault, params);
      const value = isDelay ? args.durationMs("delay") : args.string("message");
      setDiskFault(cluster, await resolveDiskId(cluster, args), key, value);
    },
    async heal(cluster, params) {
      const args = new FaultArgs(fault, params);
      setDiskFault(cluster, await resolveDiskId(cluster, args), key, undefined);
    },
    targets: (cluster) => diskTargets(cluster, isDelay ? { delay: exploredDiskDelay } : {}),
  };
  return fault;
}

export const diskAttachSlow = diskProviderFault({
  name: "disk-attach-slow",
  key: "attachLatencyMs",
  valueParam: delayParam,
  models: "The cloud provider takes long to attach a disk (a busy control plane, a slow hypervisor).",
  kubernetesReaction:
    "The attach/detach controller's attach operation stays pending and the pod stays ContainerCreating; the kubelet " +
    "waits for the volume in node.status.volumesAttached and, after " +
    `${podAttachAndMountTimeout}, reports Warning FailedMount \`Unable to attach or mount volumes: unmounted ` +
    "volumes=[<name>], unattached volumes=[<name>], failed to process volumes=[]: timed out waiting for the " +
    "condition`, then keeps waiting. When the attach completes: Normal SuccessfulAttachVolume, then the mount.",
  healing: "Attaches started afterwards take the provider's usual time.",
});

export const diskAttachError = diskProviderFault({
  name: "disk-attach-error",
  key: "attachError",
  valueParam: messageParam,
  models: "The cloud provider refuses to attach a disk (quota, an internal error, a disk stuck in another state).",
  kubernetesReaction:
    'Warning FailedAttachVolume on the pod: `AttachVolume.Attach failed for volume "<pv>" : attaching disk <id> ' +
    "to node <node> failed: <message>`. The volume is marked Uncertain on that node and the attach is retried with " +
    `backoff (500 ms doubling to ${operationBackoffCap}); the pod stays ContainerCreating with the kubelet's ` +
    "`Unable to attach or mount volumes: … unattached volumes=[<name>] …` every 2m3s.",
  healing: "The next retry attaches the disk: Normal SuccessfulAttachVolume, then the mount and the pod start.",
});

export const diskDetachSlow = diskProviderFault({
  name: "disk-detach-slow",
  key: "detachLatencyMs",
  valueParam: delayParam,
  models: "The cloud provider takes long to detach a disk.",
  kubernetesReaction:
    "The volume leaves node.status.volumesAttached before the detach starts; the detach operation then stays " +
    "pending. For a ReadWriteOnce volume its single operation key also holds back the attach to the next node, so a " +
    "pod moving to another node waits in ContainerCreating until the detach completes.",
  healing: "Detaches started afterwards take the provider's usual time.",
});

export const diskDetachError = diskProviderFault({
  name: "disk-detach-error",
  key: "detachError",
  valueParam: messageParam,
  models: "The cloud provider fails to detach a disk (an internal error, the instance in a transitional state).",
  kubernetesReaction:
    "The detach fails without an event: the attach/detach controller marks the volume Uncertain on the old node " +
    `and retries with backoff (500 ms doubling to ${operationBackoffCap}); the disk stays attached there, so an ` +
    "RWO volume cannot follow its pod to another node, whose pod waits in ContainerCreating.",
  healing: "The next retry detaches the disk and the attach to the new node follows.",
});

export const diskExpandError = diskProviderFault({
  name: "disk-expand-error",
  key: "expandError",
  valueParam: messageParam,
  models: "The cloud provider refuses to grow a disk (a quota, a disk type that cannot grow, an internal error).",
  kubernetesReaction:
    "ControllerExpandVolume fails with Internal; the external-resizer records Warning VolumeResizeFailed on the claim: " +
    '`resize volume "<pv>" by resizer "disk.csi.kvol.io" failed: rpc error: code = Internal desc = ' +
    "ControllerExpandVolume: resizing disk <id> to <bytes> bytes failed: <message>`, adds the ControllerResizeError " +
    "condition `failed to expand pvc with …`, keeps allocatedResourceStatuses ControllerResizeInProgress and retries " +
    "with backoff (1 s doubling to 5 min); the PV and the claim keep their old capacity.",
  healing: "The next retry grows the disk: the PV takes the new capacity and the claim is FileSystemResizePending.",
});

const defaultMkfsFailureOutput = "mkfs.ext4: Input/output error while writing out and closing file system";

export const diskFormatFailure: FaultDefinition = {
  name: "disk-format-failure",
  models: "mkfs fails on a new, unformatted disk (a bad sector, a read-only or zero-size device).",
  kubernetesReaction:
    'Warning FailedMount on the pod: `MountVolume.MountDevice failed for volume "<pv>" : format of disk ' +
    '"<device>" failed: type:("ext4") target:("<global mount path>") options:("defaults") errcode:(exit status 1) ' +
    "output:(<mkfs output>) `, retried with backoff; the pod stays ContainerCreating. A disk that already holds a " +
    "filesystem is never formatted, so it is not affected.",
  healing: "mkfs works again: the next retry formats and mounts the disk.",
  params: [
    ...diskTargetParams,
    {
      name: "output",
      type: "string",
      required: false,
      default: defaultMkfsFailureOutput,
      description: "What mkfs prints before it exits with status 1.",
    },
  ],
  async inject(cluster, params) {
    const args = new FaultArgs(diskFormatFailure, params);
    const diskId = await resolveDiskId(cluster, args);
    cluster.world.disks.disk(diskId).storage.faults.mkfsFailureOutput = args.string("output");
  },
  async heal(cluster, params) {
    const args = new FaultArgs(diskFormatFailure, params);
    const diskId = await resolveDiskId(cluster, args);
    delete cluster.world.disks.disk(diskId).storage.faults.mkfsFailureOutput;
  },
  targets: (cluster) => diskTargets(cluster),
};
