/**
 * The Node object `cluster.addNode` registers, shaped as a kubelet registers its node: the
 * well-known hostname, OS, architecture and zone labels, the taints asked for, capacity, and a
 * Ready condition (the heartbeat keeps it fresh).
 */
import type { Node } from "../api/objects.ts";
import type { SimNodeOptions } from "../host/sim/sim-world.ts";
import {
  archLabel,
  defaultNodeCapacity,
  hostnameLabel,
  nodeArch,
  nodeOs,
  osLabel,
  zoneLabel,
} from "../kubelet/constants.ts";
import { readyCondition } from "./node-heartbeat.ts";

type Taint = NonNullable<NonNullable<Node["spec"]>["taints"]>[number];

export interface NodeOptions {
  /** Extra labels; they may override the well-known ones. */
  labels?: Readonly<Record<string, string>>;
  taints?: readonly Taint[];
  /** `topology.kubernetes.io/zone`; the simulated disks of other zones cannot attach here. */
  zone?: string;
  /** Resource quantities the node offers (`cpu`, `memory`, `pods`); kubelet defaults otherwise. */
  capacity?: Readonly<Record<string, string>>;
  /** `kubelet` (default unless the cluster runs the stand-in): the real node agent; `heartbeat`: only a test heartbeat. */
  agent?: "kubelet" | "heartbeat";
  /** Binaries the machine lacks (`mount.nfs` without nfs-utils, seed 002); kubelet nodes only. */
  withoutCommands?: readonly string[];
  /** systemd as PID 1 (default), installed but not PID 1, or absent; kubelet nodes only. */
  systemd?: SimNodeOptions["systemd"];
  /** Wording of mount(8) errors: "2.23" (default, CentOS 7) or "2.38"; kubelet nodes only. */
  utilLinux?: SimNodeOptions["utilLinux"];
  /**
   * kvol beyond Kubernetes (default true): the kubelet republishes CSI pod mounts it finds corrupted
   * at a pod sync; false reproduces Kubernetes. Kubelet nodes only.
   */
  repairCorruptedCsiMounts?: boolean;
}

export function newNodeObject(name: string, options: NodeOptions, nowMs: number): Node {
  const capacity = { ...defaultNodeCapacity, ...options.capacity };
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: {
        [hostnameLabel]: name,
        [osLabel]: nodeOs,
        [archLabel]: nodeArch,
        ...(options.zone === undefined ? {} : { [zoneLabel]: options.zone }),
        ...options.labels,
      },
    },
    spec: options.taints === undefined || options.taints.length === 0 ? {} : { taints: [...options.taints] },
    status: {
      capacity,
      allocatable: { ...capacity },
      conditions: [readyCondition(undefined, nowMs)],
      addresses: [{ type: "Hostname", address: name }],
    },
  };
}
