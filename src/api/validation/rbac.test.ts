import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { problemsOf } from "./testing/test-support.ts";

const group = "rbac.authorization.k8s.io";

const role = {
  metadata: { name: "pod-reader", namespace: "team-a" },
  rules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }],
};

const binding = {
  metadata: { name: "read-pods", namespace: "team-a" },
  roleRef: { apiGroup: group, kind: "Role", name: "pod-reader" },
  subjects: [
    { kind: "User", apiGroup: group, name: "jane" },
    { kind: "ServiceAccount", name: "default", namespace: "team-a" },
  ],
};

describe("RBAC validation", () => {
  it("accepts a role and a binding of it", () => {
    assert.deepEqual(problemsOf("Role", role), []);
    assert.deepEqual(problemsOf("RoleBinding", binding), []);
  });

  it("wants verbs, API groups and resources in every rule, and non-resource URLs only cluster-wide", () => {
    const bad = { ...role, rules: [{ resources: ["pods"] }, { verbs: ["get"], nonResourceURLs: ["/healthz"] }] };
    assert.deepEqual(problemsOf("Role", bad), [
      "rules[0].verbs: Required value: verbs must contain at least one value",
      "rules[0].apiGroups: Required value: resource rules must supply at least one api group",
      'rules[1].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
    ]);
    const clusterRole = { metadata: { name: "health" }, rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }] };
    assert.deepEqual(problemsOf("ClusterRole", clusterRole), []);
  });

  it("names the bad part of a binding's role reference and subjects", () => {
    const bad = {
      metadata: { name: "x" },
      roleRef: { apiGroup: "rbac", kind: "Role", name: "" },
      subjects: [
        { kind: "Robot", name: "r2" },
        { kind: "ServiceAccount", name: "default" },
      ],
    };
    assert.deepEqual(problemsOf("ClusterRoleBinding", bad), [
      'roleRef.apiGroup: Unsupported value: "rbac": supported values: "rbac.authorization.k8s.io"',
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      "roleRef.name: Required value",
      'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
      "subjects[1].namespace: Required value",
    ]);
  });

  it("refuses to point an existing binding at another role", () => {
    const stored = { ...binding, metadata: { ...binding.metadata, resourceVersion: "5", uid: "u1" } };
    const moved = { ...stored, roleRef: { apiGroup: group, kind: "ClusterRole", name: "admin" } };
    assert.deepEqual(problemsOf("RoleBinding", moved, stored), [
      'roleRef: Invalid value: {"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"admin"}: cannot change roleRef',
    ]);
  });

  it("wants a selector in an aggregation rule", () => {
    const aggregated = { metadata: { name: "monitoring" }, rules: [], aggregationRule: {} };
    assert.deepEqual(problemsOf("ClusterRole", aggregated), [
      "aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil",
    ]);
  });
});
