/**
 * The roles and bindings kube-apiserver creates at start (its RBAC bootstrap policy), as far as
 * they concern the API kvol serves: `cluster-admin` (bound to group `system:masters`, the group of
 * kvol's own administrator), the user-facing `admin`, `edit` and `view` (aggregated from the
 * `system:aggregate-to-*` roles), and the roles every authenticated user holds (`system:basic-user`,
 * `system:discovery`, `system:public-info-viewer`). Node agents are authorized by node restriction,
 * as Kubernetes authorizes kubelets by its Node authorizer, so no role is bound to `system:nodes`.
 * Missing objects are created; ones an administrator changed are left as they are.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule } from "kubernetes-types/rbac/v1.js";
import { isAlreadyExists } from "../../api/errors.ts";
import type { KObject } from "../../api/objects.ts";
import { type ResourceType, rbacGroup, resourceForKind } from "../../api/resources.ts";
import type { Store } from "../../api/store/store.ts";
import { aggregatedRules, authenticatedGroup } from "./rbac-authorizer.ts";
import { adminGroup } from "./user-info.ts";

const read = ["get", "list", "watch"];
const write = ["create", "delete", "deletecollection", "patch", "update"];
const readWrite = [...read, ...write];

function rule(verbs: readonly string[], apiGroups: readonly string[], resources: readonly string[]): PolicyRule {
  return { verbs: [...verbs], apiGroups: [...apiGroups], resources: [...resources] };
}

function urls(verbs: readonly string[], nonResourceURLs: readonly string[]): PolicyRule {
  return { verbs: [...verbs], nonResourceURLs: [...nonResourceURLs] };
}

const aggregateTo = (role: "admin" | "edit" | "view"): string => `${rbacGroup}/aggregate-to-${role}`;

const bootstrapMetadata = {
  labels: { "kubernetes.io/bootstrapping": "rbac-defaults" },
  annotations: { "rbac.authorization.kubernetes.io/autoupdate": "true" },
};

function clusterRole(
  name: string,
  rules: PolicyRule[],
  options: { labels?: Record<string, string>; aggregates?: "admin" | "edit" | "view" } = {},
): ClusterRole {
  return {
    apiVersion: `${rbacGroup}/v1`,
    kind: "ClusterRole",
    metadata: { name, ...bootstrapMetadata, labels: { ...bootstrapMetadata.labels, ...options.labels } },
    ...(options.aggregates === undefined
      ? {}
      : {
          aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregateTo(options.aggregates)]: "true" } }] },
        }),
    rules,
  };
}

const viewRules: PolicyRule[] = [
  rule(
    read,
    [""],
    [
      "pods",
      "replicationcontrollers",
      "replicationcontrollers/scale",
      "serviceaccounts",
      "services",
      "services/status",
      "endpoints",
      "persistentvolumeclaims",
      "persistentvolumeclaims/status",
      "configmaps",
    ],
  ),
  rule(
    read,
    [""],
    [
      "limitranges",
      "resourcequotas",
      "bindings",
      "events",
      "pods/status",
      "resourcequotas/status",
      "namespaces/status",
      "replicationcontrollers/status",
      "pods/log",
    ],
  ),
  // Reading namespaces at the namespace scope is reading this namespace: how a user finds which it may use.
  rule(read, [""], ["namespaces"]),
  rule(read, ["discovery.k8s.io"], ["endpointslices"]),
  rule(
    read,
    ["apps"],
    [
      "controllerrevisions",
      "statefulsets",
      "statefulsets/scale",
      "statefulsets/status",
      "daemonsets",
      "daemonsets/status",
      "deployments",
      "deployments/scale",
      "deployments/status",
      "replicasets",
      "replicasets/scale",
      "replicasets/status",
    ],
  ),
  rule(read, ["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
  rule(read, ["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"]),
  rule(read, ["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
  rule(read, ["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"]),
];

const editRules: PolicyRule[] = [
  // Reading these can escalate (secrets, exec into a pod), so they are edit's, not view's.
  rule(read, [""], ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"]),
  rule(["impersonate"], [""], ["serviceaccounts"]),
  rule(write, [""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"]),
  rule(["create"], [""], ["pods/eviction"]),
  rule(
    write,
    [""],
    [
      "configmaps",
      "events",
      "persistentvolumeclaims",
      "replicationcontrollers",
      "replicationcontrollers/scale",
      "secrets",
      "serviceaccounts",
      "services",
      "services/proxy",
    ],
  ),
  rule(["create"], [""], ["serviceaccounts/token"]),
  rule(
    write,
    ["apps"],
    [
      "daemonsets",
      "deployments",
      "deployments/rollback",
      "deployments/scale",
      "replicasets",
      "replicasets/scale",
      "statefulsets",
      "statefulsets/scale",
    ],
  ),
  rule(write, ["autoscaling"], ["horizontalpodautoscalers"]),
  rule(write, ["batch"], ["cronjobs", "jobs"]),
  rule(write, ["policy"], ["poddisruptionbudgets"]),
  rule(write, ["networking.k8s.io"], ["ingresses", "networkpolicies"]),
  rule(readWrite, ["discovery.k8s.io"], ["endpointslices"]),
];

const adminRules: PolicyRule[] = [
  rule(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]),
  rule(readWrite, [rbacGroup], ["rolebindings", "roles"]),
];

const publicInfoUrls = ["/healthz", "/livez", "/readyz", "/version", "/version/"];

function bootstrapClusterRoles(): ClusterRole[] {
  const roles: ClusterRole[] = [
    clusterRole("cluster-admin", [rule(["*"], ["*"], ["*"]), urls(["*"], ["*"])]),
    clusterRole("admin", [], { aggregates: "admin" }),
    clusterRole("edit", [], { aggregates: "edit", labels: { [aggregateTo("admin")]: "true" } }),
    clusterRole("view", [], { aggregates: "view", labels: { [aggregateTo("edit")]: "true" } }),
    clusterRole("system:aggregate-to-admin", adminRules, { labels: { [aggregateTo("admin")]: "true" } }),
    clusterRole("system:aggregate-to-edit", editRules, { labels: { [aggregateTo("edit")]: "true" } }),
    clusterRole("system:aggregate-to-view", viewRules, { labels: { [aggregateTo("view")]: "true" } }),
    clusterRole("system:basic-user", [
      rule(["create"], ["authorization.k8s.io"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
      rule(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"]),
    ]),
    clusterRole("system:discovery", [
      urls(["get"], ["/api", "/api/*", "/apis", "/apis/*", "/openapi", "/openapi/*", ...publicInfoUrls]),
    ]),
    clusterRole("system:public-info-viewer", [urls(["get"], publicInfoUrls)]),
  ];
  // The aggregated roles are written with their rules filled in, as the aggregation controller fills them.
  return roles.map((role) =>
    role.aggregationRule === undefined ? role : { ...role, rules: aggregatedRules(role, roles, 0) },
  );
}

function binding(name: string, groups: readonly string[]): ClusterRoleBinding {
  return {
    apiVersion: `${rbacGroup}/v1`,
    kind: "ClusterRoleBinding",
    metadata: { name, ...bootstrapMetadata },
    roleRef: { apiGroup: rbacGroup, kind: "ClusterRole", name },
    subjects: groups.map((group) => ({ apiGroup: rbacGroup, kind: "Group", name: group })),
  };
}

function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    binding("cluster-admin", [adminGroup]),
    binding("system:basic-user", [authenticatedGroup]),
    binding("system:discovery", [authenticatedGroup]),
    binding("system:public-info-viewer", [authenticatedGroup, "system:unauthenticated"]),
  ];
}

/** Creates the bootstrap roles and bindings that are missing. */
export async function ensureBootstrapPolicy(store: Store): Promise<void> {
  const roleType = resourceForKind("ClusterRole");
  const bindingType = resourceForKind("ClusterRoleBinding");
  if (roleType === undefined || bindingType === undefined) throw new Error("the resource registry has no RBAC kinds");
  const objects: [ResourceType, KObject][] = [
    ...bootstrapClusterRoles().map((role): [ResourceType, KObject] => [roleType, { ...role }]),
    ...bootstrapClusterRoleBindings().map((item): [ResourceType, KObject] => [bindingType, { ...item }]),
  ];
  for (const [type, object] of objects) {
    await store.create(type, object).catch((error: unknown) => {
      if (!isAlreadyExists(error)) throw error;
    });
  }
}
