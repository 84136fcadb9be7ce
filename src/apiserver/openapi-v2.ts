/**
 * OpenAPI v2 (Swagger 2.0) at `/openapi/v2`: every served path and definition in one document.
 * Current kubectl reads v3 and needs this only for `explain --output=plaintext-openapiv2`; older
 * kubectl (before 1.27, e.g. Debian's 1.20 package) validates manifests, computes apply's
 * strategic merge patch and explains fields from it, in its protobuf form.
 */
import { servedGitVersion } from "./constants.ts";
import { type OperationSpec, type PathSpec, pathsFor } from "./openapi-operations.ts";
import { type ParameterName, type ParameterSpec, parameters } from "./openapi-parameters.ts";
import { definitionsFor, servedGroupVersions } from "./openapi-schemas.ts";

export type SwaggerDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, unknown>>;
  definitions: Record<string, unknown>;
};

const responseDescriptions: Readonly<Record<string, string>> = { "200": "OK", "201": "Created", "202": "Accepted" };

function v2Parameter(name: ParameterName): Record<string, unknown> {
  const spec: ParameterSpec = parameters[name];
  return {
    uniqueItems: true,
    type: spec.type,
    description: spec.description,
    name: spec.name,
    in: spec.in,
    ...(spec.in === "path" ? { required: true } : {}),
  };
}

function ref(definition: string): Record<string, string> {
  return { $ref: `#/definitions/${definition}` };
}

function v2Operation(operation: OperationSpec): Record<string, unknown> {
  const body = operation.body;
  const parametersOfOperation: Record<string, unknown>[] = [];
  if (body !== undefined) {
    parametersOfOperation.push({ name: "body", in: "body", required: true, schema: ref(body.definition) });
  }
  parametersOfOperation.push(...operation.query.map(v2Parameter));
  const responses: Record<string, unknown> = {};
  for (const [code, definition] of Object.entries(operation.responses)) {
    responses[code] = { description: responseDescriptions[code] ?? code, schema: ref(definition) };
  }
  responses["401"] = { description: "Unauthorized" };
  return {
    description: operation.description,
    consumes: body === undefined ? ["*/*"] : [...body.contentTypes],
    produces: ["application/json", "application/yaml"],
    schemes: ["https"],
    tags: [operation.tag],
    operationId: operation.operationId,
    ...(parametersOfOperation.length === 0 ? {} : { parameters: parametersOfOperation }),
    responses,
    "x-kubernetes-action": operation.action,
    "x-kubernetes-group-version-kind": operation.kind,
  };
}

function v2PathItem(path: PathSpec): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const operation of path.operations) item[operation.method] = v2Operation(operation);
  item.parameters = path.parameters.map(v2Parameter);
  return item;
}

function sortedByKey<T>(entries: Iterable<[string, T]>): Record<string, T> {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

let cached: SwaggerDocument | undefined;

/** The whole API in one Swagger 2.0 document, built once. */
export function openApiV2Document(): SwaggerDocument {
  if (cached !== undefined) return cached;
  const paths: [string, Record<string, unknown>][] = [];
  const definitions: [string, unknown][] = [];
  for (const gv of servedGroupVersions()) {
    for (const path of pathsFor(gv)) paths.push([path.path, v2PathItem(path)]);
    definitions.push(...definitionsFor(gv));
  }
  cached = {
    swagger: "2.0",
    info: { title: "Kubernetes", version: servedGitVersion },
    paths: sortedByKey(paths),
    definitions: sortedByKey(definitions),
    securityDefinitions: {
      BearerToken: { description: "Bearer Token authentication", type: "apiKey", name: "authorization", in: "header" },
    },
    security: [{ BearerToken: [] }],
  };
  return cached;
}
