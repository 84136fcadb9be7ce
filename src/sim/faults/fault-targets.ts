/**
 * What the faults can hit in a cluster, for their `targets` lists and for checking a named target
 * exists before anything is changed: kubelet nodes and their state, the cloud disks, NFS servers.
 */

import type { Cluster } from "../../cmd/cluster.ts";
import type { SimHost } from "../../host/sim/sim-host.ts";
import type { FaultArgs } from "./fault-args.ts";

/** Nodes running a kubelet whose machine is up. */
export function runningKubeletNodes(cluster: Cluster): string[] {
  return cluster.kubeletNodeNames().filter((name) => cluster.world.node(name).poweredOn);
}

/** The machine of a kubelet node named by a fault parameter; an unknown node is a fault error. */
export function kubeletHost(cluster: Cluster, args: FaultArgs, nodeName: string): SimHost {
  const nodes = cluster.kubeletNodeNames();
  if (!nodes.includes(nodeName)) {
    throw args.error(`no kubelet node named "${nodeName}" (kubelet nodes: ${nodes.join(", ") || "none"})`);
  }
  return cluster.world.node(nodeName);
}

/** A powered-on kubelet node's machine; a node that is off is a fault error. */
export function runningKubeletHost(cluster: Cluster, args: FaultArgs, nodeName: string): SimHost {
  const host = kubeletHost(cluster, args, nodeName);
  if (!host.poweredOn) throw args.error(`node "${nodeName}" is powered off`);
  return host;
}

/** Checks a cloud disk exists; an unknown id is a fault error listing the disks. */
export function requireDisk(cluster: Cluster, args: FaultArgs, diskId: string): void {
  if (cluster.world.disks.has(diskId)) return;
  const disks = cluster.world.disks.ids();
  throw args.error(`no cloud disk named "${diskId}" (disks: ${disks.join(", ") || "none"})`);
}

/** Checks an NFS server exists; an unknown address is a fault error listing the servers. */
export function requireNfsServer(cluster: Cluster, args: FaultArgs, address: string): void {
  if (cluster.world.nfsServer(address) !== undefined) return;
  const servers = cluster.world.nfsServerAddresses();
  throw args.error(`no NFS server at "${address}" (servers: ${servers.join(", ") || "none"})`);
}
