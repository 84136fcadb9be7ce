/**
 * Who sent a request, as kube-apiserver's authenticators describe a user: a name, a uid and groups.
 * Two kinds of users are known by name: administrators (group `system:masters`, allowed
 * everything) and node agents (`system:node:<name>` in group `system:nodes`, held to node
 * restriction); every other user may do what RBAC grants it (`rbac-authorizer.ts`).
 */

export interface UserInfo {
  readonly name: string;
  readonly uid: string;
  readonly groups: readonly string[];
}

/** Members of this group may do anything, as in Kubernetes. */
export const adminGroup = "system:masters";
/** Every node agent is in this group. */
const nodesGroup = "system:nodes";
/** A node agent's user name is this prefix and the node's name. */
export const nodeUserPrefix = "system:node:";
/** The user name `kvol up` and `kvol server` write into the kubeconfig they create. */
export const adminUserName = "kvol-admin";

export function isAdmin(user: UserInfo): boolean {
  return user.groups.includes(adminGroup);
}

/** The node a user speaks for, or undefined when the user is not a node agent. */
export function nodeNameOf(user: UserInfo): string | undefined {
  if (!user.name.startsWith(nodeUserPrefix) || !user.groups.includes(nodesGroup)) return undefined;
  const name = user.name.slice(nodeUserPrefix.length);
  return name === "" ? undefined : name;
}

export function nodeUser(nodeName: string): UserInfo {
  return { name: `${nodeUserPrefix}${nodeName}`, uid: `${nodeUserPrefix}${nodeName}`, groups: [nodesGroup] };
}
