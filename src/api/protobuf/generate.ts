/**
 * Builds the committed protobuf schema (schema.json) from the field table: the messages reachable
 * from every served kind, its list, and the other kinds that travel in protobuf (Status,
 * DeleteOptions, WatchEvent, PartialObjectMetadata, Eviction, Binding, Scale, TokenRequest and the
 * self reviews), keyed by apiVersion and kind.
 * A served kind whose messages the table does not hold is left out and stays JSON-only, as a
 * custom resource is in kube-apiserver. The generation checks that every property of a kind's
 * OpenAPI definition has a protobuf field, so no field is silently dropped on the wire.
 */
import { RESOURCES, type ResourceType } from "../resources.ts";
import { kindDefinitionName } from "../schema/kind-definitions.ts";
import type { OpenApiDefinition } from "../schema/openapi-types.ts";
import { openApiDefinitions } from "../schema/schema.ts";
import { type FieldTable, readFieldTable, type TableField } from "./field-table.ts";

export const protobufSchemaPath = new URL("./schema.json", import.meta.url);

export interface ProtobufSchema {
  /** `apiVersion/Kind` (`v1/Pod`, `apps/v1/DeploymentList`) → message name. */
  kinds: Record<string, string>;
  messages: FieldTable;
}

const metaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1";

/** Kinds that are not stored resources, by the apiVersion they travel with. */
const metaKinds: readonly [apiVersion: string, kind: string, message: string][] = [
  ["v1", "Status", `${metaPrefix}.Status`],
  ["meta.k8s.io/v1", "Status", `${metaPrefix}.Status`],
  ["meta.k8s.io/v1", "DeleteOptions", `${metaPrefix}.DeleteOptions`],
  ["v1", "DeleteOptions", `${metaPrefix}.DeleteOptions`],
  ["meta.k8s.io/v1", "WatchEvent", `${metaPrefix}.WatchEvent`],
  ["meta.k8s.io/v1", "PartialObjectMetadata", `${metaPrefix}.PartialObjectMetadata`],
  ["meta.k8s.io/v1", "PartialObjectMetadataList", `${metaPrefix}.PartialObjectMetadataList`],
  ["meta.k8s.io/v1beta1", "PartialObjectMetadata", `${metaPrefix}.PartialObjectMetadata`],
  ["meta.k8s.io/v1beta1", "PartialObjectMetadataList", `${metaPrefix}.PartialObjectMetadataList`],
  ["policy/v1", "Eviction", "io.k8s.api.policy.v1.Eviction"],
  ["v1", "Binding", "io.k8s.api.core.v1.Binding"],
  // The bodies of subresources and reviews, which kubectl 1.32+ sends in protobuf too.
  ["autoscaling/v1", "Scale", "io.k8s.api.autoscaling.v1.Scale"],
  ["authentication.k8s.io/v1", "TokenRequest", "io.k8s.api.authentication.v1.TokenRequest"],
  ["authentication.k8s.io/v1", "SelfSubjectReview", "io.k8s.api.authentication.v1.SelfSubjectReview"],
  ["authorization.k8s.io/v1", "SelfSubjectAccessReview", "io.k8s.api.authorization.v1.SelfSubjectAccessReview"],
  ["authorization.k8s.io/v1", "SelfSubjectRulesReview", "io.k8s.api.authorization.v1.SelfSubjectRulesReview"],
  ["authorization.k8s.io/v1", "SubjectAccessReview", "io.k8s.api.authorization.v1.SubjectAccessReview"],
];

/**
 * Alpha fields the kubernetes-types declarations still carry but Kubernetes has since removed
 * (their numbers are retired): never sent by a current client, so they have no protobuf field.
 */
const removedAlphaFields = new Set<string>(["io.k8s.api.core.v1.PodResourceClaim.source"]);

/** The message a table type names, if any (`*[]io.k8s…Pod` → `io.k8s…Pod`). */
export function messageOf(type: string): string | undefined {
  const bare = type.replace(/^(\*|\[\]|map\[string\])+/, "");
  return bare.includes(".") ? bare : undefined;
}

/** Every message reachable from the roots; undefined when one of them is missing from the table. */
function reachable(table: FieldTable, roots: readonly string[]): Map<string, TableField[]> | undefined {
  const found = new Map<string, TableField[]>();
  const pending = [...roots];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (found.has(name)) continue;
    const fields = table[name];
    if (fields === undefined) return undefined;
    found.set(name, fields);
    for (const field of fields) {
      const nested = messageOf(field[2]);
      if (nested !== undefined && !found.has(nested)) pending.push(nested);
    }
  }
  return found;
}

/** The JSON property names a message carries, its inlined structs' included. */
function jsonNames(table: FieldTable, name: string): Set<string> {
  const names = new Set<string>(["apiVersion", "kind"]);
  for (const [json, , type, flag] of table[name] ?? []) {
    if (flag === "inline") for (const inner of jsonNames(table, messageOf(type) ?? "")) names.add(inner);
    else names.add(json);
  }
  return names;
}

function checkCoverage(table: FieldTable, messages: ReadonlyMap<string, TableField[]>): void {
  const definitions = openApiDefinitions() as Record<string, OpenApiDefinition | undefined>;
  const missing: string[] = [];
  for (const name of messages.keys()) {
    const definition = definitions[name];
    if (definition === undefined) continue;
    const carried = jsonNames(table, name);
    for (const property of Object.keys(definition.properties ?? {})) {
      const path = `${name}.${property}`;
      if (!carried.has(property) && !removedAlphaFields.has(path)) missing.push(path);
    }
  }
  if (missing.length > 0) {
    throw new Error(
      `no protobuf field in field-table.json for ${missing.join(", ")}; rerun scripts/extract-protobuf-fields.ts`,
    );
  }
}

function apiVersionOf(type: ResourceType): string {
  return type.group === "" ? type.version : `${type.group}/${type.version}`;
}

export function generateProtobufSchema(table: FieldTable = readFieldTable()): ProtobufSchema {
  const kinds: Record<string, string> = {};
  const messages = new Map<string, TableField[]>();
  const add = (apiVersion: string, kind: string, message: string): void => {
    const found = reachable(table, [message]);
    if (found === undefined) return;
    kinds[`${apiVersion}/${kind}`] = message;
    for (const [name, fields] of found) messages.set(name, fields);
  };
  for (const type of RESOURCES) {
    add(apiVersionOf(type), type.kind, kindDefinitionName(type));
    add(apiVersionOf(type), `${type.kind}List`, kindDefinitionName(type, `${type.kind}List`));
  }
  for (const [apiVersion, kind, message] of metaKinds) add(apiVersion, kind, message);
  checkCoverage(table, messages);
  const sortedKinds = Object.fromEntries(Object.entries(kinds).sort(([a], [b]) => a.localeCompare(b)));
  const sortedMessages = Object.fromEntries([...messages].sort(([a], [b]) => a.localeCompare(b)));
  return { kinds: sortedKinds, messages: sortedMessages };
}

/** The file's text: one kind or message per line, so it stays small and diffs by message. */
export function renderProtobufSchema(schema: ProtobufSchema): string {
  const line = ([key, value]: [string, unknown]): string => `    ${JSON.stringify(key)}: ${JSON.stringify(value)}`;
  const kinds = Object.entries(schema.kinds).map(line);
  const messages = Object.entries(schema.messages).map(line);
  return `{\n  "kinds": {\n${kinds.join(",\n")}\n  },\n  "messages": {\n${messages.join(",\n")}\n  }\n}\n`;
}
