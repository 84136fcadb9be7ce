/**
 * The node's CSI information (pkg/volume/csi/nodeinfomanager): the CSINode object named after the
 * node, created empty at kubelet start and owned by the Node, and what registering a CSI driver
 * writes — the driver's entry in `CSINode.spec.drivers` (node ID, topology keys, volume limit),
 * its node ID in the Node annotation `csi.volume.kubernetes.io/nodeid`, and its topology segments
 * as Node labels. Unregistering removes the entry and the node ID again.
 */
import type { CSINodeDriver } from "kubernetes-types/storage/v1.js";
import type { Client } from "../../api/client/client.ts";
import { isAlreadyExists, isNotFound } from "../../api/errors.ts";
import type { Logger } from "../../runtime/logger.ts";

const csiNodeIdAnnotation = "csi.volume.kubernetes.io/nodeid";

/** What a CSI driver reports about this node (NodeGetInfo). */
interface CsiDriverNodeInfo {
  driverName: string;
  nodeId: string;
  /** Accessible topology segments (`topology.hostpath.csi/node: node-1`). */
  topology?: Readonly<Record<string, string>>;
  /** max_volumes_per_node; absent or 0 means no limit. */
  maxVolumesPerNode?: number;
}

interface CsiNodeInfoOptions {
  client: Client;
  logger: Logger;
  nodeName: string;
}

function parseNodeIds(annotation: string | undefined): Record<string, string> {
  if (annotation === undefined || annotation === "") return {};
  try {
    const parsed: unknown = JSON.parse(annotation);
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, string>) : {};
  } catch (error) {
    throw new Error(`node annotation ${csiNodeIdAnnotation} is not a JSON object: ${String(error)}`);
  }
}

export class CsiNodeInfo {
  constructor(private readonly options: CsiNodeInfoOptions) {}

  /** Creates the CSINode with no drivers (owned by the Node) unless it exists. */
  async initialize(): Promise<void> {
    const { client, nodeName } = this.options;
    try {
      await client.csiNodes.get("", nodeName);
      return;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const node = await client.nodes.get("", nodeName);
    const uid = node.metadata?.uid;
    try {
      await client.csiNodes.create({
        apiVersion: "storage.k8s.io/v1",
        kind: "CSINode",
        metadata: {
          name: nodeName,
          ...(uid === undefined ? {} : { ownerReferences: [{ apiVersion: "v1", kind: "Node", name: nodeName, uid }] }),
        },
        spec: { drivers: [] },
      });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }

  /** InstallCSIDriver: records a registered driver on the Node and in the CSINode. */
  async installDriver(info: CsiDriverNodeInfo): Promise<void> {
    const { client, nodeName } = this.options;
    await client.nodes.mutate("", nodeName, (node) => {
      const annotations = { ...node.metadata?.annotations };
      const ids = parseNodeIds(annotations[csiNodeIdAnnotation]);
      ids[info.driverName] = info.nodeId;
      annotations[csiNodeIdAnnotation] = JSON.stringify(ids);
      node.metadata = { ...node.metadata, annotations, labels: { ...node.metadata?.labels, ...info.topology } };
    });
    const entry: CSINodeDriver = {
      name: info.driverName,
      nodeID: info.nodeId,
      topologyKeys: Object.keys(info.topology ?? {}).sort(),
      ...(info.maxVolumesPerNode ? { allocatable: { count: info.maxVolumesPerNode } } : {}),
    };
    await client.csiNodes.mutate("", nodeName, (csiNode) => {
      const others = (csiNode.spec?.drivers ?? []).filter((driver) => driver.name !== info.driverName);
      csiNode.spec = { ...csiNode.spec, drivers: [...others, entry] };
    });
    this.options.logger.info("Registered CSI driver on the node", { driver: info.driverName, nodeID: info.nodeId });
  }

  /** UninstallCSIDriver: removes the driver's entry and node ID (topology labels stay, as in Kubernetes). */
  async uninstallDriver(driverName: string): Promise<void> {
    const { client, nodeName } = this.options;
    await client.csiNodes.mutate("", nodeName, (csiNode) => {
      csiNode.spec = { ...csiNode.spec, drivers: (csiNode.spec?.drivers ?? []).filter((d) => d.name !== driverName) };
    });
    await client.nodes.mutate("", nodeName, (node) => {
      const annotations = { ...node.metadata?.annotations };
      const ids = parseNodeIds(annotations[csiNodeIdAnnotation]);
      delete ids[driverName];
      if (Object.keys(ids).length === 0) delete annotations[csiNodeIdAnnotation];
      else annotations[csiNodeIdAnnotation] = JSON.stringify(ids);
      node.metadata = { ...node.metadata, annotations };
    });
  }
}
