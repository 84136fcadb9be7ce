/**
 * The schema part of the OpenAPI documents: which definitions a group/version's document carries
 * (its kinds, their lists and everything they reach, plus the meta types its operations use), and
 * the OpenAPI v3 form of a definition (`#/components/schemas/…` references, wrapped in `allOf`
 * where a field adds a description or patch metadata, as kube-apiserver writes them).
 */
import { apiVersionOf, RESOURCES, type ResourceType } from "../api/resources.ts";
import { reachableDefinitions } from "../api/schema/definition-graph.ts";
import { kindDefinitionName, operationDefinitions } from "../api/schema/kind-definitions.ts";
import type { OpenApiDefinition, OpenApiSchema } from "../api/schema/openapi-types.ts";
import { definitionRefPrefix } from "../api/schema/openapi-types.ts";
import { openApiDefinitions } from "../api/schema/schema.ts";
import type { GroupVersionPath } from "./request-path.ts";

export const v3RefPrefix = "#/components/schemas/";

export function resourcesOf(gv: GroupVersionPath): ResourceType[] {
  return RESOURCES.filter((type) => type.group === gv.group && type.version === gv.version);
}

/** The definitions one group/version's document carries, sorted by name. */
export function definitionsFor(gv: GroupVersionPath): Map<string, OpenApiDefinition> {
  const types = resourcesOf(gv);
  const roots = types.flatMap((type) => [kindDefinitionName(type), kindDefinitionName(type, `${type.kind}List`)]);
  const extra = Object.values(operationDefinitions).filter(
    (name) => name !== operationDefinitions.binding || types.some((type) => type.kind === "Pod"),
  );
  const all = openApiDefinitions();
  const kept = reachableDefinitions((name) => all[name], [...roots, ...extra]);
  return new Map([...kept].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Every served group/version, in registry order. */
export function servedGroupVersions(): GroupVersionPath[] {
  const served = new Map<string, GroupVersionPath>();
  for (const type of RESOURCES) served.set(apiVersionOf(type), { group: type.group, version: type.version });
  return [...served.values()];
}

function v3Ref(ref: string): string {
  return `${v3RefPrefix}${ref.slice(definitionRefPrefix.length)}`;
}

/**
 * Types that accept more than one JSON type. OpenAPI v2 can only call them strings; v3 lists the
 * alternatives, and `kubectl explain` then shows their names (`<IntOrString>`, `<Quantity>`).
 */
const v3OneOfTypes: Readonly<Record<string, readonly string[]>> = {
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": ["integer", "string"],
  "io.k8s.apimachinery.pkg.api.resource.Quantity": ["string", "number"],
};

/** A definition in OpenAPI v3 form. */
export function toV3Definition(name: string, definition: OpenApiDefinition): Record<string, unknown> {
  const converted = toV3Schema(definition);
  const oneOf = v3OneOfTypes[name];
  if (oneOf === undefined) return converted;
  const { type: _replaced, ...rest } = converted;
  return { ...rest, oneOf: oneOf.map((type) => ({ type })) };
}

/** A schema in OpenAPI v3 form: references that carry siblings are wrapped in `allOf`. */
function toV3Schema(schema: OpenApiSchema): Record<string, unknown> {
  const { $ref, items, additionalProperties, properties, ...rest } = schema;
  const converted: Record<string, unknown> = { ...rest };
  if (items !== undefined) converted.items = toV3Schema(items);
  if (additionalProperties !== undefined) converted.additionalProperties = toV3Schema(additionalProperties);
  if (properties !== undefined) {
    converted.properties = Object.fromEntries(Object.entries(properties).map(([name, p]) => [name, toV3Schema(p)]));
  }
  if ($ref === undefined) return converted;
  // OpenAPI 3.0 ignores siblings of `$ref`; kube-apiserver keeps them by wrapping the reference.
  if (Object.keys(converted).length === 0) return { $ref: v3Ref($ref) };
  return { ...converted, allOf: [{ $ref: v3Ref($ref) }] };
}
