/**
 * The node columns of `kubectl get nodes`: STATUS from the Ready condition (plus
 * SchedulingDisabled when cordoned), ROLES from the `node-role.kubernetes.io/<role>` labels.
 */
import type { Node } from "../objects.ts";
import { ageSince } from "./human-duration.ts";
import { ageColumn, column, nameColumn, noneText, type ObjectPrinter, unknownText } from "./table-types.ts";

const roleLabelPrefix = "node-role.kubernetes.io/";
const legacyRoleLabel = "kubernetes.io/role";

const columns = [
  nameColumn,
  column("Status", "The status of the node"),
  column("Roles", "The roles of the node"),
  ageColumn,
  column("Version", "Kubelet Version reported by the node."),
  column("Internal-IP", "List of addresses reachable to the node.", { priority: 1 }),
  column("External-IP", "List of addresses reachable to the node.", { priority: 1 }),
  column("OS-Image", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", {
    priority: 1,
  }),
  column("Kernel-Version", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", {
    priority: 1,
  }),
  column("Container-Runtime", "ContainerRuntime Version reported by the node through runtime remote API.", {
    priority: 1,
  }),
];

/** `Ready`, `NotReady` or `Unknown` (no Ready condition), `,SchedulingDisabled` when cordoned. */
function nodeStatusText(node: Node): string {
  const ready = (node.status?.conditions ?? []).find((c) => c.type === "Ready");
  const status = [ready === undefined ? "Unknown" : ready.status === "True" ? "Ready" : "NotReady"];
  if (node.spec?.unschedulable) status.push("SchedulingDisabled");
  return status.join(",");
}

/** The sorted roles named by the node's labels, `<none>` without any. */
export function nodeRolesText(node: Node): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata?.labels ?? {})) {
    if (key.startsWith(roleLabelPrefix) && key.length > roleLabelPrefix.length) {
      roles.add(key.slice(roleLabelPrefix.length));
    } else if (key === legacyRoleLabel && value !== "") roles.add(value);
  }
  return roles.size === 0 ? noneText : [...roles].sort().join(",");
}

function addressOf(node: Node, type: string): string {
  return (node.status?.addresses ?? []).find((a) => a.type === type)?.address ?? noneText;
}

export const nodePrinter: ObjectPrinter<Node> = {
  columns,
  row(node, nowMs) {
    const info = node.status?.nodeInfo;
    return {
      cells: [
        node.metadata?.name ?? "",
        nodeStatusText(node),
        nodeRolesText(node),
        ageSince(node.metadata?.creationTimestamp, nowMs),
        info?.kubeletVersion ?? "",
        addressOf(node, "InternalIP"),
        addressOf(node, "ExternalIP"),
        info?.osImage || unknownText,
        info?.kernelVersion || unknownText,
        info?.containerRuntimeVersion || unknownText,
      ],
    };
  },
};
