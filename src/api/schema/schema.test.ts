import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { apiVersionOf, RESOURCES } from "../resources.ts";
import { type SchemaNode, schemaForKind } from "./schema.ts";

function at(node: SchemaNode | undefined, path: string): SchemaNode {
  let current = node;
  for (const step of path.split(".")) {
    if (current === undefined) break;
    current = step === "[]" ? current.items : current.properties?.[step];
  }
  assert.ok(current !== undefined, `no schema at ${path}`);
  return current;
}

describe("schemaForKind", () => {
  it("knows every served kind and its list kind", () => {
    for (const type of RESOURCES) {
      const schema = schemaForKind(apiVersionOf(type), type.kind);
      assert.equal(schema?.type, "object", type.kind);
      assert.ok(schema?.properties?.metadata, `${type.kind} has metadata`);
      assert.equal(schemaForKind(apiVersionOf(type), `${type.kind}List`)?.properties?.items?.type, "array");
    }
  });

  it("answers undefined for a kind or version the server does not serve", () => {
    assert.equal(schemaForKind("v1", "ReplicationController"), undefined);
    assert.equal(schemaForKind("apps/v1beta1", "Deployment"), undefined);
    assert.equal(schemaForKind("v1", "StorageClass"), undefined);
  });

  it("finds merge keys at depth inside a Deployment's pod template", () => {
    const deployment = schemaForKind("apps/v1", "Deployment");
    const containers = at(deployment, "spec.template.spec.containers");
    assert.equal(containers.patchStrategy, "merge");
    assert.equal(containers.patchMergeKey, "name");
    assert.equal(containers.items?.definition, "io.k8s.api.core.v1.Container");
    const env = at(containers, "[].env");
    assert.deepEqual([env.patchStrategy, env.patchMergeKey, env.listType], ["merge", "name", "map"]);
    assert.equal(at(containers, "[].volumeMounts").patchMergeKey, "mountPath");
    const ports = at(containers, "[].ports");
    assert.equal(ports.patchMergeKey, "containerPort");
    assert.deepEqual(ports.listMapKeys, ["containerPort", "protocol"]);
    assert.equal(at(deployment, "spec.strategy").patchStrategy, "retainKeys");
  });

  it("carries the pod's volume, toleration and status list semantics", () => {
    const pod = schemaForKind("v1", "Pod");
    assert.equal(at(pod, "spec.volumes").patchStrategy, "merge,retainKeys");
    assert.equal(at(pod, "spec.volumes").patchMergeKey, "name");
    assert.equal(at(pod, "spec.tolerations").listType, "atomic");
    assert.equal(at(pod, "spec.tolerations").patchStrategy, undefined);
    assert.equal(at(pod, "spec.nodeSelector").mapType, "atomic");
    assert.equal(at(pod, "status.conditions").patchMergeKey, "type");
    assert.equal(at(pod, "metadata.finalizers").listType, "set");
    assert.equal(at(pod, "metadata.ownerReferences").patchMergeKey, "uid");
    assert.equal(at(pod, "metadata.ownerReferences.[]").mapType, "atomic");
  });

  it("carries node, volume and storage semantics", () => {
    assert.equal(at(schemaForKind("v1", "Node"), "status.addresses").patchMergeKey, "type");
    assert.equal(at(schemaForKind("v1", "Node"), "status.volumesAttached").listType, "atomic");
    assert.equal(at(schemaForKind("v1", "PersistentVolume"), "spec.accessModes").listType, "atomic");
    assert.equal(at(schemaForKind("v1", "PersistentVolume"), "spec.claimRef").mapType, "atomic");
    assert.equal(at(schemaForKind("v1", "PersistentVolumeClaim"), "status.conditions").patchMergeKey, "type");
    assert.equal(at(schemaForKind("storage.k8s.io/v1", "CSINode"), "spec.drivers").patchMergeKey, "name");
    assert.equal(at(schemaForKind("storage.k8s.io/v1", "StorageClass"), "mountOptions").listType, "atomic");
    assert.equal(at(schemaForKind("apps/v1", "StatefulSet"), "spec.volumeClaimTemplates").listType, "atomic");
  });

  it("describes field types, formats and int-or-string fields", () => {
    const pod = schemaForKind("v1", "Pod");
    assert.equal(at(pod, "metadata.creationTimestamp").format, "date-time");
    assert.equal(at(pod, "metadata.creationTimestamp").type, "string");
    assert.equal(at(pod, "metadata.labels").additionalProperties?.type, "string");
    const port = at(pod, "spec.containers.[].livenessProbe.httpGet.port");
    assert.equal(port.intOrString, true);
    assert.equal(
      at(pod, "spec.containers.[].resources.limits").additionalProperties?.definition,
      "io.k8s.apimachinery.pkg.api.resource.Quantity",
    );
    assert.equal(at(pod, "spec.terminationGracePeriodSeconds").type, "integer");
    assert.match(at(pod, "spec.volumes").description ?? "", /List of volumes that can be mounted/);
    assert.deepEqual(at(pod, "spec.containers.[]").required, ["name"]);
    const pvcSpec = at(schemaForKind("v1", "PersistentVolumeClaim"), "spec");
    assert.match(pvcSpec.description ?? "", /spec defines the desired characteristics/);
    assert.equal(pvcSpec.definition, "io.k8s.api.core.v1.PersistentVolumeClaimSpec");
  });

  it("shares one node per definition, so repeated lookups are cheap and consistent", () => {
    const first = schemaForKind("v1", "Pod");
    assert.equal(schemaForKind("v1", "Pod"), first);
    assert.equal(at(first, "spec"), at(schemaForKind("v1", "Pod"), "spec"));
  });
});
