/**
 * kvol's authorizers in union, as kube-apiserver chains them (`--authorization-mode=Node,RBAC`,
 * with `system:masters` allowed everything first): administrators may do everything; node agents
 * what a kubelet needs (their writes further narrowed to their own objects by node restriction,
 * `admission/node-restriction.ts`); then RBAC's roles and bindings (`rbac-authorizer.ts`).
 * The request path (`access.ts`) and the access reviews (`kubectl auth can-i`) ask the same one.
 */
import type { PolicyRule } from "kubernetes-types/rbac/v1.js";
import type { Decision, RbacAuthorizer } from "./rbac-authorizer.ts";
import { ruleAllows } from "./rbac-rules.ts";
import type { RequestAttributes } from "./request-attributes.ts";
import { isAdmin, nodeNameOf, type UserInfo } from "./user-info.ts";

const readVerbs = ["get", "list", "watch"];
const writeVerbs = ["create", "update", "patch", "delete"];

/** What a node agent may do, as rules (its writes are further narrowed to its own objects by node restriction). */
const nodeRules: readonly PolicyRule[] = [
  {
    verbs: readVerbs,
    apiGroups: [""],
    resources: ["pods", "nodes", "persistentvolumes", "persistentvolumeclaims", "configmaps", "events", "namespaces"],
  },
  {
    verbs: readVerbs,
    apiGroups: ["storage.k8s.io"],
    resources: ["storageclasses", "volumeattachments", "csidrivers", "csinodes"],
  },
  { verbs: [...readVerbs, ...writeVerbs], apiGroups: ["coordination.k8s.io"], resources: ["leases"] },
  { verbs: writeVerbs, apiGroups: [""], resources: ["nodes", "nodes/status", "events"] },
  { verbs: writeVerbs, apiGroups: ["storage.k8s.io"], resources: ["csinodes"] },
  { verbs: ["update", "patch"], apiGroups: [""], resources: ["pods/status"] },
  // Node expansion writes the claim's capacity and resize status (Kubernetes' NodeRules grant it too).
  { verbs: ["update", "patch"], apiGroups: [""], resources: ["persistentvolumeclaims/status"] },
  { verbs: ["delete"], apiGroups: [""], resources: ["pods"] },
];

const everything: readonly PolicyRule[] = [
  { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
  { verbs: ["*"], nonResourceURLs: ["*"] },
];

/** Whether the node authorizer's rules cover the request (node restriction then narrows writes). */
export function nodeRulesAllow(attributes: RequestAttributes): boolean {
  return attributes.resourceRequest && nodeRules.some((rule) => ruleAllows(rule, attributes));
}

export class ServerAuthorizer {
  private readonly rbac: RbacAuthorizer | undefined;

  /** Without RBAC (a server without authentication, or tests), only administrators and nodes are allowed. */
  constructor(rbac?: RbacAuthorizer) {
    this.rbac = rbac;
  }

  /** `user` undefined: a server without authentication, where every request is an administrator's. */
  async authorize(user: UserInfo | undefined, attributes: RequestAttributes): Promise<Decision> {
    if (user === undefined || isAdmin(user)) return { allowed: true, reason: "" };
    const nodeName = nodeNameOf(user);
    if (nodeName !== undefined && nodeRulesAllow(attributes)) return { allowed: true, reason: "" };
    const decision =
      this.rbac === undefined ? { allowed: false, reason: "" } : await this.rbac.authorize(user, attributes);
    if (decision.allowed || nodeName === undefined) return decision;
    if (attributes.resourceRequest && attributes.resource === "secrets" && attributes.verb === "get") {
      return { allowed: false, reason: `no relationship found between node '${nodeName}' and this object` };
    }
    return decision;
  }

  /** The rules a role grants (an aggregated ClusterRole's included); none when it does not exist. */
  async roleRules(kind: string, namespace: string, name: string): Promise<PolicyRule[]> {
    return this.rbac === undefined ? [] : this.rbac.roleRules(kind, namespace, name);
  }

  /** The rules a user holds in a namespace (SelfSubjectRulesReview), and what could not be resolved. */
  async rulesOf(user: UserInfo | undefined, namespace: string): Promise<{ rules: PolicyRule[]; errors: string[] }> {
    if (user === undefined || isAdmin(user)) return { rules: [...everything], errors: [] };
    const own = nodeNameOf(user) === undefined ? [] : nodeRules;
    const granted = this.rbac === undefined ? { rules: [], errors: [] } : await this.rbac.rulesOf(user, namespace);
    return { rules: [...own, ...granted.rules], errors: granted.errors };
  }
}
