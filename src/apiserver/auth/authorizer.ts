/**
 * kvol's authorizer as a question: may this user do this? The same rules the request path
 * enforces (`access.ts`, `admission/node-restriction.ts`), stated for SelfSubjectAccessReview and
 * SelfSubjectRulesReview: administrators may do everything, node agents what a kubelet needs,
 * anyone else nothing.
 */
import { isAdmin, nodeNameOf, type UserInfo } from "./user-info.ts";

interface ResourceAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

interface Decision {
  allowed: boolean;
  reason: string;
}

interface ResourceRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
}

const readVerbs = ["get", "list", "watch"];
const writeVerbs = ["create", "update", "patch", "delete"];

/** What a node agent may do, as rules (its writes are further narrowed to its own objects by node restriction). */
const nodeRules: readonly ResourceRule[] = [
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

function matches(values: readonly string[], value: string): boolean {
  return values.includes("*") || values.includes(value);
}

function ruleAllows(rule: ResourceRule, attributes: ResourceAttributes): boolean {
  const resource =
    attributes.subresource === "" ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  return (
    matches(rule.verbs, attributes.verb) &&
    matches(rule.apiGroups, attributes.group) &&
    matches(rule.resources, resource)
  );
}

/** `user` undefined: a server without authentication, where every request is an administrator's. */
export function authorize(user: UserInfo | undefined, attributes: ResourceAttributes): Decision {
  if (user === undefined || isAdmin(user)) return { allowed: true, reason: "" };
  const nodeName = nodeNameOf(user);
  if (nodeName === undefined) return { allowed: false, reason: "" };
  if (nodeRules.some((rule) => ruleAllows(rule, attributes))) return { allowed: true, reason: "" };
  if (attributes.resource === "secrets" && attributes.verb === "get") {
    return { allowed: false, reason: `no relationship found between node '${nodeName}' and this object` };
  }
  return { allowed: false, reason: "" };
}

/** The rules a user holds (SelfSubjectRulesReview). */
export function rulesOf(user: UserInfo | undefined): readonly ResourceRule[] {
  if (user === undefined || isAdmin(user)) return [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }];
  return nodeNameOf(user) === undefined ? [] : nodeRules;
}

/** Whether the user may use non-resource URLs (`/healthz`, `/version`, …): administrators all of them. */
export function allowsAllNonResourceUrls(user: UserInfo | undefined): boolean {
  return user === undefined || isAdmin(user);
}
