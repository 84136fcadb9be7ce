import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type AuthTestServer,
  adminToken,
  nobodyToken,
  nodeATokenValue,
  startAuthTestServer,
} from "./auth/auth-test-server.ts";

const accessReviews = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

function canI(verb: string, resource: string, group = ""): Record<string, unknown> {
  return {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectAccessReview",
    spec: { resourceAttributes: { namespace: "default", verb, group, resource } },
  };
}

describe("self reviews", () => {
  let t: AuthTestServer;
  before(async () => {
    t = await startAuthTestServer();
  });
  after(() => t.close());

  it("allows the administrator anything (kubectl auth can-i create pods → yes)", async () => {
    const { status, body } = await t.call("POST", accessReviews, adminToken, canI("create", "pods"));
    assert.equal(status, 201);
    assert.equal(body.kind, "SelfSubjectAccessReview");
    assert.deepEqual(body.status, { allowed: true });
  });

  it("answers a node agent by the node rules, and a user without a role no", async () => {
    const read = await t.call("POST", accessReviews, nodeATokenValue, canI("list", "pods"));
    assert.deepEqual(read.body.status, { allowed: true });
    const create = await t.call("POST", accessReviews, nodeATokenValue, canI("create", "deployments", "apps"));
    assert.deepEqual(create.body.status, { allowed: false });
    const nobody = await t.call("POST", accessReviews, nobodyToken, canI("get", "pods"));
    assert.equal(nobody.status, 201, "every user may ask about itself");
    assert.deepEqual(nobody.body.status, { allowed: false });
  });

  it("refuses a review with neither resource nor non-resource attributes, naming the field", async () => {
    const { status, body } = await t.call("POST", accessReviews, adminToken, { spec: {} });
    assert.equal(status, 422);
    assert.match(
      String(body.message),
      /spec\.resourceAttributes: Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified/,
    );
  });

  it("tells a user who it is (kubectl auth whoami), with system:authenticated", async () => {
    const { status, body } = await t.call(
      "POST",
      "/apis/authentication.k8s.io/v1/selfsubjectreviews",
      nodeATokenValue,
      {
        apiVersion: "authentication.k8s.io/v1",
        kind: "SelfSubjectReview",
      },
    );
    assert.equal(status, 201);
    assert.deepEqual(body.status, {
      userInfo: {
        username: "system:node:node-a",
        uid: "system:node:node-a",
        groups: ["system:nodes", "system:authenticated"],
      },
    });
  });

  it("lists the administrator's rules as everything (kubectl auth can-i --list)", async () => {
    const { body } = await t.call("POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", adminToken, {
      spec: { namespace: "default" },
    });
    assert.deepEqual(body.status, {
      resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
      nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
      incomplete: false,
    });
  });

  it("lists the review resources in discovery", async () => {
    const { body } = await t.call("GET", "/apis/authorization.k8s.io/v1", adminToken);
    const names = (body.resources as { name: string }[]).map((r) => r.name);
    assert.deepEqual(names, ["selfsubjectaccessreviews", "selfsubjectrulesreviews", "subjectaccessreviews"]);
  });
});
