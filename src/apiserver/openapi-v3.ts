/**
 * OpenAPI v3, as kube-apiserver serves it: `/openapi/v3` lists one document per group/version
 * with a content hash, and `/openapi/v3/api/v1` or `/openapi/v3/apis/<group>/<version>` is that
 * document (paths with their operations, components.schemas with the `x-kubernetes-*`
 * extensions). kubectl reads these for `explain`, for client-side apply's strategic merge patch
 * and to learn that the server takes `fieldValidation`.
 */
import { createHash } from "node:crypto";
import { servedGitVersion } from "./constants.ts";
import { type OperationSpec, type PathSpec, pathsFor } from "./openapi-operations.ts";
import { type ParameterName, type ParameterSpec, parameters } from "./openapi-parameters.ts";
import { definitionsFor, servedGroupVersions, toV3Definition, v3RefPrefix } from "./openapi-schemas.ts";
import type { GroupVersionPath } from "./request-path.ts";

const responseDescriptions: Readonly<Record<string, string>> = { "200": "OK", "201": "Created", "202": "Accepted" };

/** The content types responses are served in. */
const responseContentTypes = ["application/json", "application/yaml"];

function v3Parameter(name: ParameterName): Record<string, unknown> {
  const spec: ParameterSpec = parameters[name];
  return {
    name: spec.name,
    in: spec.in,
    description: spec.description,
    ...(spec.in === "path" ? { required: true } : {}),
    schema: { type: spec.type, uniqueItems: true },
  };
}

function schemaRef(definition: string): Record<string, string> {
  return { $ref: `${v3RefPrefix}${definition}` };
}

function v3Responses(responses: OperationSpec["responses"]): Record<string, unknown> {
  const rendered: Record<string, unknown> = {};
  for (const [code, definition] of Object.entries(responses)) {
    const content = Object.fromEntries(responseContentTypes.map((type) => [type, { schema: schemaRef(definition) }]));
    rendered[code] = { description: responseDescriptions[code] ?? code, content };
  }
  rendered["401"] = { description: "Unauthorized" };
  return rendered;
}

function v3Operation(operation: OperationSpec): Record<string, unknown> {
  const { body } = operation;
  return {
    tags: [operation.tag],
    description: operation.description,
    operationId: operation.operationId,
    ...(operation.query.length === 0 ? {} : { parameters: operation.query.map(v3Parameter) }),
    ...(body === undefined
      ? {}
      : {
          requestBody: {
            content: Object.fromEntries(
              body.contentTypes.map((type) => [type, { schema: schemaRef(body.definition) }]),
            ),
            required: true,
          },
        }),
    responses: v3Responses(operation.responses),
    "x-kubernetes-action": operation.action,
    "x-kubernetes-group-version-kind": operation.kind,
  };
}

function v3PathItem(path: PathSpec): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const operation of path.operations) item[operation.method] = v3Operation(operation);
  item.parameters = path.parameters.map(v3Parameter);
  return item;
}

function buildDocument(gv: GroupVersionPath): Record<string, unknown> {
  const schemas = Object.fromEntries(
    [...definitionsFor(gv)].map(([name, definition]) => [name, toV3Definition(name, definition)]),
  );
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes", version: servedGitVersion },
    paths: Object.fromEntries(pathsFor(gv).map((path) => [path.path, v3PathItem(path)])),
    components: {
      schemas,
      securitySchemes: {
        BearerToken: {
          type: "apiKey",
          description: "Bearer Token authentication",
          name: "authorization",
          in: "header",
        },
      },
    },
    security: [{ BearerToken: [] }],
  };
}

/** A served document: its JSON text and the hash clients use to cache it. */
interface RenderedDocument {
  readonly text: string;
  readonly hash: string;
}

function render(document: unknown): RenderedDocument {
  const text = JSON.stringify(document);
  return { text, hash: createHash("sha512").update(text).digest("hex").toUpperCase() };
}

/** `api/v1` or `apis/<group>/<version>`: the path of a group/version under /openapi/v3/. */
function documentPath(gv: GroupVersionPath): string {
  return gv.group === "" ? `api/${gv.version}` : `apis/${gv.group}/${gv.version}`;
}

/** The documents never change while the process runs, so each is built once, on first request. */
const documents = new Map<string, RenderedDocument>();

function documentPaths(): Map<string, GroupVersionPath> {
  return new Map(servedGroupVersions().map((gv) => [documentPath(gv), gv]));
}

/** The document of `api/v1` or `apis/<group>/<version>`, or undefined when that group/version is not served. */
export function openApiV3Document(path: string): RenderedDocument | undefined {
  const cached = documents.get(path);
  if (cached !== undefined) return cached;
  const gv = documentPaths().get(path);
  if (gv === undefined) return undefined;
  const rendered = render(buildDocument(gv));
  documents.set(path, rendered);
  return rendered;
}

/** `/openapi/v3`: each group/version's document path with the hash of its current content. */
export function openApiV3Index(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const path of documentPaths().keys()) {
    const document = openApiV3Document(path);
    if (document !== undefined) paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${document.hash}` };
  }
  return { paths };
}
