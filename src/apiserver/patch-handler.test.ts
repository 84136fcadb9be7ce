import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { testPod } from "../api/client/testing/test-api.ts";
import { resourceForKind } from "../api/resources.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

const pods = "/api/v1/namespaces/default/pods";
const deployments = "/apis/apps/v1/namespaces/default/deployments";
const strategic = "application/strategic-merge-patch+json";
const apply = "application/apply-patch+yaml";

type Json = Record<string, unknown>;

const manifestsText = readFileSync(new URL("./fixtures/server-side-apply.yaml", import.meta.url), "utf8");
const manifests = parseAllDocuments(manifestsText).map((document) => document.toJSON() as Json);

function objectPath(manifest: Json): string {
  const metadata = manifest.metadata as { name: string; namespace?: string };
  const type = resourceForKind(String(manifest.kind));
  assert.ok(type, `kind ${String(manifest.kind)} is served`);
  const base = type.group === "" ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const namespace = type.namespaced ? `/namespaces/${metadata.namespace ?? "default"}` : "";
  return `${base}${namespace}/${type.plural}/${metadata.name}`;
}

function deployment(replicas: number, image = "nginx:1.25"): Json {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default" },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image }] } },
    },
  };
}

function metadataOf(body: Json): { resourceVersion?: string; managedFields?: Json[] } {
  return body.metadata as { resourceVersion?: string; managedFields?: Json[] };
}

describe("PATCH: strategic merge patch and server-side apply", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  it("applies the strategic merge patch kubectl apply sends and records its manager", async () => {
    await t.call("POST", `${deployments}?fieldManager=kubectl-client-side-apply`, deployment(2));
    const patched = await t.call(
      "PATCH",
      `${deployments}/web?fieldManager=kubectl-client-side-apply`,
      {
        spec: {
          template: {
            spec: {
              "$setElementOrder/containers": [{ name: "nginx" }],
              containers: [{ image: "nginx:1.26", name: "nginx" }],
            },
          },
        },
      },
      strategic,
    );
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const spec = patched.body.spec as { replicas: number; template: { spec: { containers: Json[] } } };
    assert.equal(spec.replicas, 2);
    assert.deepEqual(
      spec.template.spec.containers.map((container) => [container.name, container.image]),
      [["nginx", "nginx:1.26"]],
    );
    const managers = metadataOf(patched.body).managedFields?.map((entry) => `${entry.manager}/${entry.operation}`);
    assert.deepEqual(managers, ["kubectl-client-side-apply/Update"]);
  });

  it("refuses a malformed strategic merge patch with 400 naming the problem, storing nothing", async () => {
    await t.call("POST", pods, testPod("default", "web"));
    const before = t.store.revision();
    const answer = await t.call("PATCH", `${pods}/web`, { spec: { containers: [{ image: "x" }] } }, strategic);
    assert.equal(answer.status, 400);
    assert.match(String(answer.body.message), /does not contain declared merge key: name/);
    assert.equal(t.store.revision(), before);
  });

  for (const manifest of manifests) {
    it(`server-side applies a ${String(manifest.kind)}: 201, then a re-apply stores nothing`, async () => {
      const path = `${objectPath(manifest)}?fieldManager=kubectl&force=false`;
      const created = await t.call("PATCH", path, JSON.stringify(manifest), apply);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const entries = metadataOf(created.body).managedFields ?? [];
      assert.deepEqual(
        entries.map((entry) => [entry.manager, entry.operation, entry.fieldsType]),
        [["kubectl", "Apply", "FieldsV1"]],
      );
      const revision = t.store.revision();
      const again = await t.call("PATCH", path, JSON.stringify(manifest), apply);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal(metadataOf(again.body).resourceVersion, metadataOf(created.body).resourceVersion);
      assert.equal(t.store.revision(), revision, "a no-op apply writes nothing");
    });
  }

  it("accepts the configuration as YAML", async () => {
    const yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n";
    const answer = await t.call("PATCH", "/api/v1/namespaces/default/configmaps/settings?fieldManager=me", yaml, apply);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.data, { mode: "fast" });
  });

  it("answers a conflicting apply with 409 in Kubernetes' wording, then force moves ownership", async () => {
    await t.call("POST", `${deployments}?fieldManager=kubectl-client-side-apply`, deployment(2));
    const conflict = await t.call("PATCH", `${deployments}/web?fieldManager=kubectl`, deployment(3), apply);
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.reason, "Conflict");
    assert.match(
      String(conflict.body.message),
      /^Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps\/v1 at [0-9TZ:-]+: \.spec\.replicas$/,
    );
    const unchanged = await t.call("GET", `${deployments}/web`);
    assert.equal((unchanged.body.spec as { replicas: number }).replicas, 2);

    const forced = await t.call("PATCH", `${deployments}/web?fieldManager=kubectl&force=true`, deployment(3), apply);
    assert.equal(forced.status, 200, JSON.stringify(forced.body));
    assert.equal((forced.body.spec as { replicas: number }).replicas, 3);
    const csa = metadataOf(forced.body).managedFields?.find((entry) => entry.manager === "kubectl-client-side-apply");
    const csaSpec = (csa?.fieldsV1 as Record<string, Json> | undefined)?.["f:spec"];
    assert.ok(csaSpec, "the client-side manager keeps the rest of spec");
    assert.equal(csaSpec["f:replicas"], undefined);
  });

  it("removes a field the manager stopped applying", async () => {
    const path = "/api/v1/namespaces/default/configmaps/settings?fieldManager=me";
    const first = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings" }, data: { a: "1", b: "2" } };
    await t.call("PATCH", path, first, apply);
    const second = await t.call("PATCH", path, { ...first, data: { a: "1" } }, apply);
    assert.deepEqual(second.body.data, { a: "1" });
  });

  it("requires a field manager for apply and refuses force on other patches (422)", async () => {
    const missing = await t.call("PATCH", `${deployments}/web`, deployment(1), apply);
    assert.equal(missing.status, 422);
    assert.match(String(missing.body.message), /fieldManager: Required value: is required for apply patch/);
    await t.call("POST", deployments, deployment(1));
    const forced = await t.call("PATCH", `${deployments}/web?force=true`, { spec: { replicas: 2 } }, strategic);
    assert.equal(forced.status, 422);
    assert.match(String(forced.body.message), /force: Forbidden: may not be specified for non-apply patch/);
  });

  it("refuses a configuration of another kind than the URL's with 400", async () => {
    const before = t.store.revision();
    const answer = await t.call("PATCH", `${pods}/web?fieldManager=me`, deployment(1), apply);
    assert.equal(answer.status, 400);
    assert.match(String(answer.body.message), /this URL serves apiVersion "v1", kind "Pod"/);
    assert.equal(t.store.revision(), before);
  });

  it("refuses a configuration that is not YAML with 400", async () => {
    const answer = await t.call("PATCH", `${pods}/web?fieldManager=me`, "kind: [unclosed", apply);
    assert.equal(answer.status, 400);
    assert.match(String(answer.body.message), /not valid YAML/);
  });
});
