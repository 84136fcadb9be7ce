/**
 * The schema of every served kind as a tree of SchemaNodes: field types, descriptions, and the
 * patch metadata strategic merge patch and server-side apply need (merge keys, list and map
 * types, int-or-string). Built from the committed OpenAPI definitions; `$ref`s resolve lazily,
 * on first access, so a recursive type would not loop and unused parts cost nothing.
 */
import { createRequire } from "node:module";
import type { OpenApiDefinitions, OpenApiSchema } from "./openapi-types.ts";
import { refName } from "./openapi-types.ts";

export interface SchemaNode {
  readonly type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  readonly format?: string;
  readonly description?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly items?: SchemaNode;
  readonly additionalProperties?: SchemaNode;
  /** `merge`, `retainKeys` or `merge,retainKeys`. */
  readonly patchStrategy?: string;
  readonly patchMergeKey?: string;
  readonly listType?: "atomic" | "set" | "map";
  readonly listMapKeys?: readonly string[];
  readonly mapType?: "atomic" | "granular";
  /** The field takes an integer or a string (`IntOrString`). */
  readonly intOrString?: boolean;
  /** The OpenAPI definition this node is an instance of, e.g. `io.k8s.api.core.v1.Container`. */
  readonly definition?: string;
}

const intOrStringFormat = "int-or-string";

let loadedDefinitions: OpenApiDefinitions | undefined;

/** The committed OpenAPI definitions (src/api/schema/definitions.json), read once. */
export function openApiDefinitions(): OpenApiDefinitions {
  if (loadedDefinitions === undefined) {
    const require = createRequire(import.meta.url);
    loadedDefinitions = require("./definitions.json") as OpenApiDefinitions;
  }
  return loadedDefinitions;
}

const definitionNodes = new Map<string, SchemaNode>();
const definitionByKind = new Map<string, string>();

function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

function indexKinds(): void {
  if (definitionByKind.size > 0) return;
  for (const [name, definition] of Object.entries(openApiDefinitions())) {
    for (const gvk of definition["x-kubernetes-group-version-kind"] ?? []) {
      const apiVersion = gvk.group === "" ? gvk.version : `${gvk.group}/${gvk.version}`;
      definitionByKind.set(kindKey(apiVersion, gvk.kind), name);
    }
  }
}

/** The field-level facts of a schema: everything but what a `$ref` brings. */
function ownFacts(schema: OpenApiSchema): SchemaNode {
  const facts: Record<string, unknown> = {
    type: schema.type,
    format: schema.format,
    description: schema.description,
    required: schema.required,
    patchStrategy: schema["x-kubernetes-patch-strategy"],
    patchMergeKey: schema["x-kubernetes-patch-merge-key"],
    listType: schema["x-kubernetes-list-type"],
    listMapKeys: schema["x-kubernetes-list-map-keys"],
    mapType: schema["x-kubernetes-map-type"],
    intOrString: schema.format === intOrStringFormat ? true : undefined,
  };
  for (const key of Object.keys(facts)) if (facts[key] === undefined) delete facts[key];
  return facts as SchemaNode;
}

/** Defines `key` on `node` as a getter that builds its value once, on first access. */
function defineLazy<T>(node: object, key: string, build: () => T): void {
  Object.defineProperty(node, key, {
    enumerable: true,
    configurable: true,
    get(): T {
      const value = build();
      Object.defineProperty(node, key, { value, enumerable: true, writable: false, configurable: false });
      return value;
    },
  });
}

function addChildren(node: object, schema: OpenApiSchema): void {
  const { properties, items, additionalProperties } = schema;
  if (properties !== undefined) {
    defineLazy(node, "properties", () =>
      Object.fromEntries(Object.entries(properties).map(([name, child]) => [name, toNode(child)])),
    );
  }
  if (items !== undefined) defineLazy(node, "items", () => toNode(items));
  if (additionalProperties !== undefined) defineLazy(node, "additionalProperties", () => toNode(additionalProperties));
}

/**
 * A field that refers to a definition: the definition's facts, overridden by the field's own
 * (its description and patch metadata), with the definition's children.
 */
function referenceNode(schema: OpenApiSchema, name: string): SchemaNode {
  const target = definitionNode(name);
  const node: Record<string, unknown> = { ...ownFactsOfDefinition(name), ...ownFacts(schema), definition: name };
  for (const key of ["properties", "items", "additionalProperties"] as const) {
    if (key in target) defineLazy(node, key, () => target[key]);
  }
  return node as SchemaNode;
}

function ownFactsOfDefinition(name: string): SchemaNode {
  const definition = openApiDefinitions()[name];
  if (definition === undefined) throw new Error(`the schema refers to ${name}, which is not defined`);
  return ownFacts(definition);
}

function toNode(schema: OpenApiSchema): SchemaNode {
  if (schema.$ref !== undefined) return referenceNode(schema, refName(schema.$ref));
  const node: Record<string, unknown> = { ...ownFacts(schema) };
  addChildren(node, schema);
  return node as SchemaNode;
}

/** The node of one definition, shared by every field of that type. */
function definitionNode(name: string): SchemaNode {
  const cached = definitionNodes.get(name);
  if (cached !== undefined) return cached;
  const definition = openApiDefinitions()[name];
  if (definition === undefined) throw new Error(`no schema definition named ${name}`);
  const node: Record<string, unknown> = { ...ownFacts(definition), definition: name };
  definitionNodes.set(name, node as SchemaNode);
  addChildren(node, definition);
  return node as SchemaNode;
}

/** The OpenAPI definition name of a kind (`v1`, `Pod` → `io.k8s.api.core.v1.Pod`). */
function definitionNameForKind(apiVersion: string, kind: string): string | undefined {
  indexKinds();
  return definitionByKind.get(kindKey(apiVersion, kind));
}

/** The schema of a kind (and its list kind), or undefined when this server does not serve it. */
export function schemaForKind(apiVersion: string, kind: string): SchemaNode | undefined {
  const name = definitionNameForKind(apiVersion, kind);
  return name === undefined ? undefined : definitionNode(name);
}
