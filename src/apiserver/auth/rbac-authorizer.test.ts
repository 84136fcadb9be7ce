import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { type AuthTestServer, adminToken, nobodyToken, startAuthTestServer } from "./auth-test-server.ts";

const rbac = "/apis/rbac.authorization.k8s.io/v1";
const group = "rbac.authorization.k8s.io";
const configMap = (namespace: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace } });

async function bind(t: AuthTestServer, where: string, name: string, roleKind: string, role: string): Promise<void> {
  const kind = where === "" ? "ClusterRoleBinding" : "RoleBinding";
  const path = where === "" ? `${rbac}/clusterrolebindings` : `${rbac}/namespaces/${where}/rolebindings`;
  const answer = await t.call("POST", path, adminToken, {
    apiVersion: `${group}/v1`,
    kind,
    metadata: { name },
    roleRef: { apiGroup: group, kind: roleKind, name: role },
    subjects: [{ kind: "User", apiGroup: group, name: "nobody" }],
  });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
}

describe("RBAC authorization", () => {
  let t: AuthTestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("lets a user bound to view read everywhere and write nowhere, in Kubernetes' words", async () => {
    t = await startAuthTestServer();
    await bind(t, "", "nobody-view", "ClusterRole", "view");
    assert.equal((await t.call("GET", "/api/v1/namespaces/kube-system/pods", nobodyToken)).status, 200);
    assert.equal((await t.call("GET", "/api/v1/pods", nobodyToken)).status, 200);
    const write = await t.call("POST", "/api/v1/namespaces/default/configmaps", nobodyToken, configMap("default"));
    assert.equal(write.status, 403);
    assert.equal(
      write.body.message,
      'configmaps is forbidden: User "nobody" cannot create resource "configmaps" in API group "" in the namespace "default"',
    );
    const secret = await t.call("GET", "/api/v1/namespaces/default/secrets/token", nobodyToken);
    assert.equal(
      secret.body.message,
      'secrets "token" is forbidden: User "nobody" cannot get resource "secrets" in API group "" in the namespace "default"',
    );
  });

  it("holds a user bound in one namespace to that namespace", async () => {
    t = await startAuthTestServer();
    await t.call("POST", "/api/v1/namespaces", adminToken, { metadata: { name: "team-a" } });
    await bind(t, "team-a", "nobody-edit", "ClusterRole", "edit");
    const inside = await t.call("POST", "/api/v1/namespaces/team-a/configmaps", nobodyToken, configMap("team-a"));
    assert.equal(inside.status, 201);
    const outside = await t.call("GET", "/api/v1/namespaces/default/configmaps", nobodyToken);
    assert.equal(
      outside.body.message,
      'configmaps is forbidden: User "nobody" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
    const everywhere = await t.call("GET", "/api/v1/configmaps", nobodyToken);
    assert.equal(everywhere.status, 403);
  });

  it("matches resource names and subresources, and reports a binding to a missing role", async () => {
    t = await startAuthTestServer();
    const role = {
      metadata: { name: "one-config" },
      rules: [{ verbs: ["get", "update"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["c"] }],
    };
    assert.equal((await t.call("POST", `${rbac}/namespaces/default/roles`, adminToken, role)).status, 201);
    await bind(t, "default", "one-config", "Role", "one-config");
    await bind(t, "default", "ghost", "Role", "ghost");
    await t.call("POST", "/api/v1/namespaces/default/configmaps", adminToken, configMap("default"));
    assert.equal((await t.call("GET", "/api/v1/namespaces/default/configmaps/c", nobodyToken)).status, 200);
    const other = await t.call("GET", "/api/v1/namespaces/default/configmaps/d", nobodyToken);
    assert.equal(
      other.body.message,
      'configmaps "d" is forbidden: User "nobody" cannot get resource "configmaps" in API group "" in the namespace "default": RBAC: role.rbac.authorization.k8s.io "ghost" not found',
    );
  });

  it("serves an administrator as the user it impersonates, and refuses impersonation to others", async () => {
    t = await startAuthTestServer();
    await bind(t, "", "nobody-view", "ClusterRole", "view");
    const asNobody = { "Impersonate-User": "nobody" };
    const create = await t.call(
      "POST",
      "/api/v1/namespaces/default/configmaps",
      adminToken,
      configMap("default"),
      undefined,
      asNobody,
    );
    assert.equal(create.status, 403);
    const review = await t.call(
      "POST",
      "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
      adminToken,
      { spec: { resourceAttributes: { verb: "list", resource: "pods", namespace: "default" } } },
      undefined,
      asNobody,
    );
    assert.deepEqual(review.body.status, {
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "nobody-view" of ClusterRole "view" to User "nobody"',
    });
    const refused = await t.call("GET", "/api/v1/pods", nobodyToken, undefined, undefined, {
      "Impersonate-User": "jane",
    });
    assert.equal(refused.status, 403);
    assert.equal(
      refused.body.message,
      'users "jane" is forbidden: User "nobody" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });

  it("answers a SubjectAccessReview about another user, for those who may create one", async () => {
    t = await startAuthTestServer();
    const spec = { user: "jane", resourceAttributes: { verb: "delete", resource: "pods", namespace: "default" } };
    const path = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
    const answer = await t.call("POST", path, adminToken, { spec });
    assert.deepEqual(answer.body.status, { allowed: false });
    assert.equal((await t.call("POST", path, nobodyToken, { spec })).status, 403);
  });

  it("creates the bootstrap roles users expect", async () => {
    t = await startAuthTestServer();
    const list = await t.call("GET", `${rbac}/clusterroles`, adminToken);
    const names = (list.body.items as { metadata: { name: string } }[]).map((role) => role.metadata.name);
    for (const name of ["cluster-admin", "admin", "edit", "view"]) assert.ok(names.includes(name), name);
    const bindings = await t.call("GET", `${rbac}/clusterrolebindings/cluster-admin`, adminToken);
    assert.deepEqual(bindings.body.subjects, [{ apiGroup: group, kind: "Group", name: "system:masters" }]);
  });

  it("refuses to let a user grant or bind permissions it does not hold", async () => {
    t = await startAuthTestServer();
    await bind(t, "default", "nobody-admin", "ClusterRole", "admin");
    const roles = `${rbac}/namespaces/default/roles`;
    const held = {
      metadata: { name: "secret-reader" },
      rules: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }],
    };
    assert.equal((await t.call("POST", roles, nobodyToken, held)).status, 201);
    const more = {
      metadata: { name: "too-much" },
      rules: [{ verbs: ["list", "get"], apiGroups: [""], resources: ["nodes", "secrets"] }],
    };
    const refused = await t.call("POST", roles, nobodyToken, more);
    assert.equal(refused.status, 403);
    assert.equal(
      refused.body.message,
      'roles.rbac.authorization.k8s.io "too-much" is forbidden: user "nobody" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}\n{APIGroups:[""], Resources:["nodes"], Verbs:["list"]}',
    );
    const toAdmin = {
      metadata: { name: "all-of-it" },
      roleRef: { apiGroup: group, kind: "ClusterRole", name: "cluster-admin" },
      subjects: [{ kind: "User", apiGroup: group, name: "nobody" }],
    };
    const escalated = await t.call("POST", `${rbac}/namespaces/default/rolebindings`, nobodyToken, toAdmin);
    assert.equal(escalated.status, 403);
    assert.match(
      String(escalated.body.message),
      /^rolebindings.rbac.authorization.k8s.io "all-of-it" is forbidden: user "nobody" .* not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}/,
    );
  });
});
