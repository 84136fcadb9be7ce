import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { startTestServer, type TestServer } from "./test-server.ts";

const claims = "/api/v1/namespaces/default/persistentvolumeclaims";
const deployments = "/apis/apps/v1/namespaces/default/deployments";

const claimWithBogusField = JSON.stringify({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name: "data" },
  spec: {
    accessModes: ["ReadWriteOnce"],
    resources: { requests: { storage: "1Gi" } },
    bogusField: "x",
  },
});

const deploymentWithProblems = `{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {"name": "web", "app": "web"},
  "spec": {
    "unknown1": "val1",
    "paused": true,
    "paused": false,
    "selector": {"matchLabels": {"app": "web"}},
    "template": {
      "metadata": {"labels": {"app": "web"}},
      "spec": {"containers": [{"name": "nginx", "image": "nginx", "unknownNested": 1,
        "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}
    }
  }
}`;

interface Answer {
  status: number;
  body: Record<string, unknown>;
  warnings: string[];
}

describe("field validation (fieldValidation=Strict|Warn|Ignore)", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  async function send(method: string, path: string, body: string, contentType = "application/json"): Promise<Answer> {
    const response = await fetch(`${t.server.url}${path}`, {
      method,
      body,
      headers: { "Content-Type": contentType },
    });
    const text = await response.text();
    const warnings = headerValues(response.headers.get("warning"));
    return { status: response.status, body: JSON.parse(text) as Record<string, unknown>, warnings };
  }

  async function storedClaimSpec(): Promise<Record<string, unknown>> {
    const read = await t.call("GET", `${claims}/data`);
    assert.equal(read.status, 200);
    return read.body.spec as Record<string, unknown>;
  }

  it("Strict refuses a create with an unknown field with kube-apiserver's 400 and stores nothing", async () => {
    const answer = await send("POST", `${claims}?fieldValidation=Strict`, claimWithBogusField);
    assert.equal(answer.status, 400);
    assert.equal(answer.body.reason, "BadRequest");
    assert.equal(
      answer.body.message,
      'PersistentVolumeClaim in version "v1" cannot be handled as a PersistentVolumeClaim: strict decoding error: unknown field "spec.bogusField"',
    );
    assert.equal((await t.call("GET", `${claims}/data`)).status, 404);
  });

  it("Strict reports every unknown and repeated field, in the order the body has them", async () => {
    const answer = await send("POST", `${deployments}?fieldValidation=Strict`, deploymentWithProblems);
    assert.equal(answer.status, 400);
    assert.equal(
      answer.body.message,
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "metadata.app", unknown field "spec.unknown1", duplicate field "paused", unknown field "spec.template.spec.containers[0].unknownNested", duplicate field "imagePullPolicy"',
    );
  });

  it("Warn, the default, drops the field, stores the rest and says so in a Warning header", async () => {
    const answer = await send("POST", claims, claimWithBogusField);
    assert.equal(answer.status, 201);
    assert.deepEqual(answer.warnings, ['299 - "unknown field \\"spec.bogusField\\""']);
    assert.equal((answer.body.spec as Record<string, unknown>).bogusField, undefined);
    const spec = await storedClaimSpec();
    assert.equal(spec.bogusField, undefined);
    assert.deepEqual(spec.accessModes, ["ReadWriteOnce"]);
  });

  it("Warn lists each problem in its own Warning value, last repeated value kept", async () => {
    const answer = await send("POST", `${deployments}?fieldValidation=Warn`, deploymentWithProblems);
    assert.equal(answer.status, 201);
    assert.deepEqual(answer.warnings, [
      '299 - "unknown field \\"metadata.app\\""',
      '299 - "unknown field \\"spec.unknown1\\""',
      '299 - "duplicate field \\"paused\\""',
      '299 - "unknown field \\"spec.template.spec.containers[0].unknownNested\\""',
      '299 - "duplicate field \\"imagePullPolicy\\""',
    ]);
    const spec = answer.body.spec as { paused: boolean; template: { spec: { containers: Record<string, unknown>[] } } };
    assert.equal(spec.paused, false);
    assert.equal(spec.template.spec.containers[0]?.imagePullPolicy, "Never");
    assert.equal(spec.template.spec.containers[0]?.unknownNested, undefined);
  });

  it("Ignore drops the field without a warning", async () => {
    const answer = await send("POST", `${claims}?fieldValidation=Ignore`, claimWithBogusField);
    assert.equal(answer.status, 201);
    assert.deepEqual(answer.warnings, []);
    assert.equal((await storedClaimSpec()).bogusField, undefined);
  });

  it("refuses an unknown directive as kube-apiserver does", async () => {
    const answer = await send("POST", `${claims}?fieldValidation=Loose`, claimWithBogusField);
    assert.equal(answer.status, 422);
    assert.equal(
      answer.body.message,
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"',
    );
  });

  it("applies to updates", async () => {
    await send("POST", claims, claimWithBogusField);
    const strict = await send("PUT", `${claims}/data?fieldValidation=Strict`, claimWithBogusField);
    assert.equal(strict.status, 400);
    assert.match(String(strict.body.message), /strict decoding error: unknown field "spec.bogusField"$/);
    const warned = await send("PUT", `${claims}/data`, claimWithBogusField);
    assert.equal(warned.status, 200);
    assert.deepEqual(warned.warnings, ['299 - "unknown field \\"spec.bogusField\\""']);
  });

  it("applies to merge, strategic merge and JSON patches, judged on the patched object", async () => {
    await send("POST", claims, claimWithBogusField);
    const patches: [string, string][] = [
      ["application/merge-patch+json", '{"spec":{"bogusField":"y"}}'],
      ["application/strategic-merge-patch+json", '{"spec":{"bogusField":"y"}}'],
      ["application/json-patch+json", '[{"op":"add","path":"/spec/bogusField","value":"y"}]'],
    ];
    for (const [type, patch] of patches) {
      const strict = await send("PATCH", `${claims}/data?fieldValidation=Strict`, patch, type);
      assert.equal(strict.status, 400, type);
      assert.equal(strict.body.message, 'strict decoding error: unknown field "spec.bogusField"', type);
      const warned = await send("PATCH", `${claims}/data`, patch, type);
      assert.equal(warned.status, 200, type);
      assert.deepEqual(warned.warnings, ['299 - "unknown field \\"spec.bogusField\\""'], type);
      assert.equal((warned.body.spec as Record<string, unknown>).bogusField, undefined, type);
    }
    const repeated = await send(
      "PATCH",
      `${claims}/data?fieldValidation=Strict`,
      '{"metadata":{"labels":{"a":"1","a":"2"}}}',
      "application/merge-patch+json",
    );
    assert.equal(repeated.body.message, 'strict decoding error: duplicate field "a"');
  });

  it("server-side apply refuses an undeclared field whatever the directive, and warns of repeated keys", async () => {
    const applyPath = `${claims}/data?fieldManager=test&fieldValidation=Ignore`;
    const unknown = await send("PATCH", applyPath, claimWithBogusField, "application/apply-patch+yaml");
    assert.equal(unknown.status, 400);
    assert.equal(
      unknown.body.message,
      "failed to create typed patch object (default/data; /v1, Kind=PersistentVolumeClaim): .spec.bogusField: field not declared in schema",
    );
    const repeated = [
      "apiVersion: v1",
      "kind: PersistentVolumeClaim",
      "metadata:",
      "  name: data",
      "spec:",
      "  accessModes: [ReadWriteOnce]",
      "  accessModes: [ReadWriteMany]",
      "  resources: {requests: {storage: 1Gi}}",
    ].join("\n");
    const warned = await send("PATCH", `${claims}/data?fieldManager=test`, repeated, "application/apply-patch+yaml");
    assert.equal(warned.status, 201);
    assert.deepEqual(warned.warnings, ['299 - "line 7: key \\"accessModes\\" already set in map"']);
    assert.deepEqual((warned.body.spec as Record<string, unknown>).accessModes, ["ReadWriteMany"]);
    const strict = await send(
      "PATCH",
      `${claims}/data?fieldManager=test&fieldValidation=Strict`,
      repeated,
      "application/apply-patch+yaml",
    );
    assert.equal(strict.status, 400);
    assert.equal(strict.body.message, 'strict decoding error: line 7: key "accessModes" already set in map');
  });
});

/** Splits a combined header value (`a, b`) into its quoted warning values. */
function headerValues(combined: string | null): string[] {
  if (combined === null) return [];
  return combined.match(/299 - "(?:[^"\\]|\\.)*"/g) ?? [];
}
