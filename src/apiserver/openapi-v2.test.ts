import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openApiV2ProtobufContentType } from "./openapi-v2-protobuf.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

type Json = Record<string, unknown>;

interface WireField {
  field: number;
  /** Length-delimited payloads; varints as their number. */
  value: Uint8Array | number;
}

/** Reads one level of protocol buffers wire format (varint and length-delimited fields only). */
function readFields(bytes: Uint8Array): WireField[] {
  const fields: WireField[] = [];
  let offset = 0;
  const varint = (): number => {
    let result = 0;
    let scale = 1;
    for (;;) {
      const byte = bytes[offset++] ?? 0;
      result += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return result;
      scale *= 128;
    }
  };
  while (offset < bytes.length) {
    const tag = varint();
    const wireType = tag % 8;
    if (wireType === 0) fields.push({ field: Math.floor(tag / 8), value: varint() });
    else if (wireType === 2) {
      const length = varint();
      fields.push({ field: Math.floor(tag / 8), value: bytes.subarray(offset, offset + length) });
      offset += length;
    } else assert.fail(`unexpected wire type ${wireType}`);
  }
  return fields;
}

function only(fields: WireField[], field: number): Uint8Array[] {
  return fields.filter((f) => f.field === field).map((f) => f.value as Uint8Array);
}

function asText(bytes: Uint8Array | undefined): string {
  return Buffer.from(bytes ?? new Uint8Array()).toString("utf8");
}

/** `Named*` messages: (1) name, (2) value. */
function named(entries: Uint8Array[]): Map<string, WireField[]> {
  return new Map(
    entries.map((entry) => {
      const fields = readFields(entry);
      return [asText(only(fields, 1)[0]), readFields(only(fields, 2)[0] ?? new Uint8Array())];
    }),
  );
}

describe("OpenAPI v2", () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  it("serves the whole API as one Swagger 2.0 JSON document", async () => {
    const { status, body } = await t.call("GET", "/openapi/v2");
    assert.equal(status, 200);
    assert.equal(body.swagger, "2.0");
    const paths = body.paths as Record<string, Json>;
    assert.ok(paths["/api/v1/namespaces/{namespace}/persistentvolumeclaims/{name}"]);
    assert.ok(paths["/apis/storage.k8s.io/v1/volumeattachments/{name}/status"]);
    const patch = paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]?.patch as Json;
    const names = (patch.parameters as Json[]).map((p) => p.name);
    assert.deepEqual(names, ["body", "dryRun", "fieldManager", "fieldValidation", "force"]);
    assert.ok((patch.consumes as string[]).includes("application/strategic-merge-patch+json"));
    const definitions = body.definitions as Record<string, Json>;
    const podSpec = definitions["io.k8s.api.core.v1.PodSpec"];
    assert.ok(podSpec, "PodSpec is defined");
    const containers = (podSpec.properties as Record<string, Json>).containers;
    assert.equal(containers?.["x-kubernetes-patch-merge-key"], "name");
    assert.deepEqual(containers?.items, { $ref: "#/definitions/io.k8s.api.core.v1.Container" });
  });

  it("serves gnostic's protobuf form to clients that ask for it, as kubectl does", async () => {
    const response = await fetch(`${t.server.url}/openapi/v2`, {
      headers: { Accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), openApiV2ProtobufContentType);
    const document = readFields(new Uint8Array(await response.arrayBuffer()));
    assert.equal(asText(only(document, 1)[0]), "2.0", "Document.swagger");
    const paths = named(only(readFields(only(document, 8)[0] ?? new Uint8Array()), 2));
    assert.ok(paths.has("/api/v1/namespaces/{namespace}/pods/{name}"), "Paths.path");
    const definitions = named(only(readFields(only(document, 9)[0] ?? new Uint8Array()), 1));
    const pvc = definitions.get("io.k8s.api.core.v1.PersistentVolumeClaim");
    assert.ok(pvc, "Definitions has the PVC");
    const extensions = named(only(pvc, 31));
    const gvk = asText(only(extensions.get("x-kubernetes-group-version-kind") ?? [], 2)[0]);
    assert.match(gvk, /kind: PersistentVolumeClaim/, "vendor extensions carry YAML");
    const specProperties = named(
      only(readFields(only(definitions.get("io.k8s.api.core.v1.PodSpec") ?? [], 25)[0] ?? new Uint8Array()), 1),
    );
    const volumes = named(only(specProperties.get("volumes") ?? [], 31));
    assert.match(asText(only(volumes.get("x-kubernetes-patch-strategy") ?? [], 2)[0]), /merge,retainKeys/);
  });
});
