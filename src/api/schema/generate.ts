/**
 * Builds the committed definitions file: the definitions reachable from every served kind (and
 * its list, and the meta types the API paths use), with Kubernetes' patch metadata applied.
 * Development-time only; scripts/generate-schema.ts writes the result and a test checks the
 * committed file still equals a fresh generation.
 */
import { RESOURCES } from "../resources.ts";
import { reachableDefinitions } from "./definition-graph.ts";
import {
  isCustomResourceGroup,
  kindDefinitionName,
  kindModulePath,
  operationDefinitionModules,
  operationDefinitions,
} from "./kind-definitions.ts";
import type { OpenApiDefinition, OpenApiDefinitions } from "./openapi-types.ts";
import { atomicStructs, type FieldPatchMetadata, fieldPatchMetadata } from "./patch-metadata.ts";
import { readKubernetesTypes } from "./read-declarations.ts";

export const definitionsFilePath = new URL("./definitions.json", import.meta.url);

/** The `kubernetes-types` modules of the served kinds (`core/v1`, `storage/v1`, …). */
function servedModules(): string[] {
  const builtIn = RESOURCES.filter((type) => !isCustomResourceGroup(type));
  return [...new Set([...builtIn.map(kindModulePath), ...operationDefinitionModules])];
}

/** kvol's own declarations of the custom resources it serves (`snapshot/v1`). */
function customResourceModules(): string[] {
  return [...new Set(RESOURCES.filter(isCustomResourceGroup).map(kindModulePath))];
}

function rootDefinitions(): string[] {
  const kinds = RESOURCES.flatMap((type) => [kindDefinitionName(type), kindDefinitionName(type, `${type.kind}List`)]);
  return [...kinds, ...Object.values(operationDefinitions)];
}

function extensions(metadata: FieldPatchMetadata): Record<string, unknown> {
  return {
    ...(metadata.patchMergeKey === undefined ? {} : { "x-kubernetes-patch-merge-key": metadata.patchMergeKey }),
    ...(metadata.patchStrategy === undefined ? {} : { "x-kubernetes-patch-strategy": metadata.patchStrategy }),
    ...(metadata.listType === undefined ? {} : { "x-kubernetes-list-type": metadata.listType }),
    ...(metadata.listMapKeys === undefined ? {} : { "x-kubernetes-list-map-keys": [...metadata.listMapKeys] }),
    ...(metadata.mapType === undefined ? {} : { "x-kubernetes-map-type": metadata.mapType }),
  };
}

function withFieldMetadata(
  name: string,
  definition: OpenApiDefinition,
  fields: Readonly<Record<string, FieldPatchMetadata>>,
): OpenApiDefinition {
  const properties = { ...definition.properties };
  for (const [field, metadata] of Object.entries(fields)) {
    const property = properties[field];
    if (property === undefined) throw new Error(`patch metadata names ${name}.${field}, which does not exist`);
    const expected = metadata.mapType === undefined ? "array" : "object";
    if (property.type !== expected && metadata.patchStrategy !== "retainKeys") {
      throw new Error(`patch metadata for ${name}.${field} expects an ${expected}, the field is ${property.type}`);
    }
    properties[field] = { ...property, ...extensions(metadata) };
  }
  return { ...definition, properties };
}

function applyPatchMetadata(definitions: Map<string, OpenApiDefinition>): void {
  for (const [name, fields] of Object.entries(fieldPatchMetadata)) {
    const definition = definitions.get(name);
    if (definition === undefined) throw new Error(`patch metadata names ${name}, which no served kind uses`);
    definitions.set(name, withFieldMetadata(name, definition, fields));
  }
  for (const name of atomicStructs) {
    const definition = definitions.get(name);
    if (definition === undefined) throw new Error(`atomic struct ${name} is not used by any served kind`);
    definitions.set(name, { ...definition, "x-kubernetes-map-type": "atomic" });
  }
}

/** The definitions of every served kind, sorted by name so the file diffs cleanly. */
export function generateDefinitions(): OpenApiDefinitions {
  const declared = readKubernetesTypes(servedModules(), customResourceModules()).definitions;
  const kept = reachableDefinitions((name) => declared.get(name), rootDefinitions());
  applyPatchMetadata(kept);
  const sorted = [...kept.keys()].sort();
  return Object.fromEntries(sorted.map((name) => [name, kept.get(name) as OpenApiDefinition]));
}
