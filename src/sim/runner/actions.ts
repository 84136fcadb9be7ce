/**
 * Carries out one timeline action on the cluster, as the operator's kubectl command or the fault
 * would, and says what was done in a line for the timeline.
 */
import type { KindName, KObject, Node } from "../../api/objects.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import { formatObjectRef, type ObjectRef } from "../conditions/object-ref.ts";
import { faultNamed } from "../faults/catalogue.ts";
import type { FaultParams } from "../faults/fault.ts";
import { writeToVolume } from "../invariants/data-ledger.ts";
import type { Action, Taint } from "../scenario/model.ts";
import { joinScenarioNode } from "./join-node.ts";

interface ActionOutcome {
  /** The object acted on, as the timeline names it. */
  readonly object: string;
  readonly message: string;
}

/** Performs `action`; rejects with the API server's or the fault's error when it fails. */
export async function performAction(cluster: Cluster, action: Action): Promise<ActionOutcome> {
  switch (action.type) {
    case "apply": {
      const applied = await cluster.apply(action.manifests as string | KObject[]);
      const names = applied.map((object) => `${object.kind} ${qualifiedName(object)}`);
      return { object: action.source, message: `apply: ${names.join(", ")}` };
    }
    case "delete": {
      const gracePeriodSeconds = action.force ? 0 : action.gracePeriodSeconds;
      const { kind, namespace } = action.object;
      await cluster.delete(
        kind,
        namespace,
        nameOf(action.object),
        gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds },
      );
      const how = action.force
        ? " --force --grace-period=0"
        : gracePeriodSeconds === undefined
          ? ""
          : ` --grace-period=${gracePeriodSeconds}`;
      return { object: formatObjectRef(action.object), message: `delete${how}` };
    }
    case "patch":
      await resourceOf(cluster, action.object.kind).patch(action.object.namespace, nameOf(action.object), action.merge);
      return { object: formatObjectRef(action.object), message: `patch ${JSON.stringify(action.merge)}` };
    case "scale":
      await resourceOf(cluster, action.object.kind).patch(action.object.namespace, nameOf(action.object), {
        spec: { replicas: action.replicas },
      });
      return { object: formatObjectRef(action.object), message: `scale --replicas=${action.replicas}` };
    case "taint":
      await mutateNode(cluster, action.node, (node) => addTaint(node, action.taint));
      return { object: `node ${action.node}`, message: `taint ${taintText(action.taint)}` };
    case "untaint":
      await mutateNode(cluster, action.node, (node) => removeTaint(node, action.key, action.effect));
      return {
        object: `node ${action.node}`,
        message: `untaint ${action.key}${action.effect ? `:${action.effect}` : ""}-`,
      };
    case "cordon":
    case "uncordon":
      await mutateNode(cluster, action.node, (node) => {
        node.spec = { ...node.spec, unschedulable: action.type === "cordon" };
      });
      return { object: `node ${action.node}`, message: action.type };
    case "fence":
      cluster.world.fenceNodeStorage(action.node);
      return {
        object: `node ${action.node}`,
        message: "fenced at the storage backends (ceph osd blocklist add, disk I/O refused)",
      };
    case "unfence":
      cluster.world.unfenceNodeStorage(action.node);
      return { object: `node ${action.node}`, message: "unfenced at the storage backends" };
    case "registerCsiDriver":
      await cluster.csiDrivers.registerNodePlugin(action.node, action.driver);
      return { object: `node ${action.node}`, message: `CSI driver ${action.driver} registers with the kubelet` };
    case "unregisterCsiDriver":
      await cluster.csiDrivers.unregisterNodePlugin(action.node, action.driver);
      return { object: `node ${action.node}`, message: `CSI driver ${action.driver} leaves the node` };
    case "addNode":
      await joinScenarioNode(cluster, action.node);
      return { object: `node ${action.node.name}`, message: "joins the cluster" };
    case "fault":
      await faultNamed(action.fault).inject(cluster, action.params);
      return { object: faultObject(action.params), message: `fault ${action.fault}${paramsText(action.params)}` };
    case "heal":
      await healFault(cluster, action.fault, action.params);
      return { object: faultObject(action.params), message: `heal ${action.fault}${paramsText(action.params)}` };
    case "write":
      await writeToVolume(cluster, {
        namespace: action.namespace,
        pod: action.pod,
        volume: action.volume,
        path: action.path,
        content: action.content,
      });
      return {
        object: `pod ${action.namespace}/${action.pod}`,
        message: `write ${action.content.length} bytes to ${action.path} in volume ${action.volume}`,
      };
  }
}

async function healFault(cluster: Cluster, fault: string, params: FaultParams): Promise<void> {
  const definition = faultNamed(fault);
  if (definition.heal === undefined) throw new Error(`fault ${fault} happens once and cannot be healed`);
  await definition.heal(cluster, params);
}

/** The object a fault is about, by its usual parameters: `node node-a`, `nfs 10.0.9.1`. */
export function faultObject(params: FaultParams): string {
  for (const key of ["node", "pod", "server", "disk", "driver"]) {
    const value = params[key];
    if (value !== undefined) return `${key} ${String(value)}`;
  }
  return "cluster";
}

function paramsText(params: FaultParams): string {
  const entries = Object.entries(params);
  return entries.length === 0 ? "" : ` ${entries.map(([key, value]) => `${key}=${String(value)}`).join(" ")}`;
}

function nameOf(ref: ObjectRef): string {
  if (ref.name === undefined) throw new Error(`${formatObjectRef(ref)} names no object`);
  return ref.name;
}

function qualifiedName(object: KObject): string {
  const { namespace, name } = object.metadata ?? {};
  return namespace ? `${namespace}/${name}` : (name ?? "");
}

type PatchableResource = { patch(namespace: string, name: string, patch: Record<string, unknown>): Promise<unknown> };

function resourceOf(cluster: Cluster, kind: KindName): PatchableResource {
  // A merge patch is untyped JSON; every resource client takes one.
  return cluster.client.resource(kind) as unknown as PatchableResource;
}

async function mutateNode(cluster: Cluster, name: string, change: (node: Node) => void): Promise<void> {
  await cluster.client.nodes.mutate("", name, change);
}

function addTaint(node: Node, taint: Taint): void {
  const others = (node.spec?.taints ?? []).filter((t) => !(t.key === taint.key && t.effect === taint.effect));
  node.spec = { ...node.spec, taints: [...others, { ...taint }] };
}

function removeTaint(node: Node, key: string, effect: string | undefined): void {
  const kept = (node.spec?.taints ?? []).filter((t) => t.key !== key || (effect !== undefined && t.effect !== effect));
  node.spec = { ...node.spec, taints: kept };
}

function taintText(taint: Taint): string {
  return `${taint.key}${taint.value === undefined ? "" : `=${taint.value}`}:${taint.effect}`;
}
