import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { readFieldTable } from "./field-table.ts";
import { generateProtobufSchema, protobufSchemaPath, renderProtobufSchema } from "./generate.ts";

describe("the committed protobuf schema", () => {
  it("equals a fresh generation from the field table", () => {
    assert.deepEqual(
      JSON.parse(readFileSync(protobufSchemaPath, "utf8")),
      JSON.parse(renderProtobufSchema(generateProtobufSchema())),
      "src/api/protobuf/schema.json is stale: run `node --import tsx scripts/generate-protobuf-schema.ts` and commit it",
    );
  });

  it("holds Kubernetes' field numbers for the fields every client touches", () => {
    const { messages } = generateProtobufSchema();
    const number = (message: string, json: string): number | undefined =>
      messages[message]?.find(([name]) => name === json)?.[1];
    assert.equal(number("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "managedFields"), 17);
    assert.equal(number("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "labels"), 11);
    assert.equal(number("io.k8s.api.core.v1.PodSpec", "initContainers"), 20);
    assert.equal(number("io.k8s.api.core.v1.PersistentVolumeClaimSpec", "storageClassName"), 5);
    assert.equal(number("io.k8s.api.core.v1.Secret", "stringData"), 4);
    assert.equal(number("io.k8s.api.apps.v1.DeploymentSpec", "replicas"), 1);
  });

  it("leaves a kind whose messages the table lacks JSON-only", () => {
    const table = readFieldTable();
    delete table["io.k8s.api.coordination.v1.LeaseSpec"];
    const { kinds } = generateProtobufSchema(table);
    assert.equal(kinds["coordination.k8s.io/v1/Lease"], undefined);
    assert.equal(kinds["v1/Pod"], "io.k8s.api.core.v1.Pod");
  });

  it("refuses a table that would drop a field of a served kind", () => {
    const table = readFieldTable();
    table["io.k8s.api.core.v1.PodSpec"] = (table["io.k8s.api.core.v1.PodSpec"] ?? []).filter(
      ([name]) => name !== "volumes",
    );
    assert.throws(() => generateProtobufSchema(table), /io\.k8s\.api\.core\.v1\.PodSpec\.volumes/);
  });
});
