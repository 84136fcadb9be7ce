/**
 * The OpenAPI v2 document in its protobuf form (gnostic's `openapi.v2.Document`), the only form kubectl asks
 * `/openapi/v2` for. Field numbers are gnostic's OpenAPIv2.proto; only the messages this server's
 * document uses are written. Vendor extensions travel as YAML text, as gnostic stores them.
 */
import { stringify } from "yaml";
import type { SwaggerDocument } from "./openapi-v2.ts";
import { ProtoWriter } from "./protobuf-writer.ts";

/** What clients send in Accept (older ones write `@v1.0`, which Go's mime parser rejects in a Content-Type). */
export const openApiV2ProtobufMediaPrefix = "application/com.github.proto-openapi.spec.v2";

/** What kube-apiserver answers with, and so what clients parse. */
export const openApiV2ProtobufContentType = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

type Json = Record<string, unknown>;

function record(value: unknown, what: string): Json {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error(`OpenAPI v2 protobuf: ${what} is not an object`);
  }
  return value as Json;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function texts(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function entries(value: unknown, what: string): [string, unknown][] {
  return value === undefined ? [] : Object.entries(record(value, what));
}

/** `NamedAny` vendor extensions: every `x-` key of the object. */
function vendorExtensions(writer: ProtoWriter, field: number, source: Json): void {
  for (const [name, value] of Object.entries(source)) {
    if (!name.startsWith("x-")) continue;
    writer.message(field, (named) => named.string(1, name).message(2, (any) => any.string(2, stringify(value))));
  }
}

function writeSchema(writer: ProtoWriter, schema: Json): void {
  writer.string(1, text(schema.$ref)).string(2, text(schema.format)).string(4, text(schema.description));
  writer.strings(19, texts(schema.required));
  if (schema.additionalProperties !== undefined) {
    const additional = record(schema.additionalProperties, "additionalProperties");
    writer.message(21, (item) => item.message(1, (nested) => writeSchema(nested, additional)));
  }
  if (typeof schema.type === "string") writer.message(22, (type) => type.strings(1, [schema.type as string]));
  if (schema.items !== undefined) {
    const items = record(schema.items, "items");
    writer.message(23, (item) => item.message(1, (nested) => writeSchema(nested, items)));
  }
  if (schema.properties !== undefined) {
    writer.message(25, (properties) => {
      for (const [name, property] of entries(schema.properties, "properties")) {
        properties.message(1, (named) =>
          named.string(1, name).message(2, (nested) => writeSchema(nested, record(property, name))),
        );
      }
    });
  }
  vendorExtensions(writer, 31, schema);
}

function writeNonBodyParameter(writer: ProtoWriter, parameter: Json): void {
  // QueryParameterSubSchema (3) and PathParameterSubSchema (4) number `type` and `uniqueItems` differently.
  const isPath = parameter.in === "path";
  writer.message(isPath ? 4 : 3, (sub) => {
    sub.bool(1, parameter.required === true).string(2, text(parameter.in));
    sub.string(3, text(parameter.description)).string(4, text(parameter.name));
    sub.string(isPath ? 5 : 6, text(parameter.type)).bool(isPath ? 19 : 20, parameter.uniqueItems === true);
  });
}

/** A `ParametersItem` holding a `Parameter`: a body parameter or a non-body one. */
function writeParameter(writer: ProtoWriter, parameter: Json): void {
  writer.message(1, (item) => {
    if (parameter.in === "body") {
      item.message(1, (body) => {
        body.string(1, text(parameter.description)).string(2, text(parameter.name)).string(3, "body");
        body.bool(4, parameter.required === true);
        body.message(5, (schema) => writeSchema(schema, record(parameter.schema, "body schema")));
      });
    } else {
      item.message(2, (nonBody) => writeNonBodyParameter(nonBody, parameter));
    }
  });
}

function writeResponses(writer: ProtoWriter, responses: Json): void {
  for (const [code, value] of Object.entries(responses)) {
    const response = record(value, `response ${code}`);
    writer.message(1, (named) =>
      named.string(1, code).message(2, (responseValue) =>
        responseValue.message(1, (body) => {
          body.string(1, text(response.description));
          if (response.schema !== undefined) {
            const schema = record(response.schema, "response schema");
            body.message(2, (item) => item.message(1, (nested) => writeSchema(nested, schema)));
          }
        }),
      ),
    );
  }
}

function writeOperation(writer: ProtoWriter, operation: Json): void {
  writer
    .strings(1, texts(operation.tags))
    .string(3, text(operation.description))
    .string(5, text(operation.operationId));
  writer.strings(6, texts(operation.produces)).strings(7, texts(operation.consumes));
  for (const parameter of Array.isArray(operation.parameters) ? operation.parameters : []) {
    writer.message(8, (item) => writeParameter(item, record(parameter, "parameter")));
  }
  writer.message(9, (responses) => writeResponses(responses, record(operation.responses, "responses")));
  writer.strings(10, texts(operation.schemes));
  vendorExtensions(writer, 13, operation);
}

/** PathItem field numbers by HTTP method. */
const pathItemFields: Readonly<Record<string, number>> = { get: 2, put: 3, post: 4, delete: 5, patch: 8 };

function writePathItem(writer: ProtoWriter, item: Json): void {
  for (const [method, field] of Object.entries(pathItemFields)) {
    const operation = item[method];
    if (operation !== undefined) writer.message(field, (nested) => writeOperation(nested, record(operation, method)));
  }
  for (const parameter of Array.isArray(item.parameters) ? item.parameters : []) {
    writer.message(9, (nested) => writeParameter(nested, record(parameter, "parameter")));
  }
}

function writeSecurity(writer: ProtoWriter, document: SwaggerDocument): void {
  for (const requirement of Array.isArray(document.security) ? document.security : []) {
    writer.message(12, (security) => {
      for (const [name, scopes] of entries(requirement, "security requirement")) {
        security.message(1, (named) => named.string(1, name).message(2, (array) => array.strings(1, texts(scopes))));
      }
    });
  }
  writer.message(13, (definitions) => {
    for (const [name, value] of entries(document.securityDefinitions, "securityDefinitions")) {
      const scheme = record(value, name);
      definitions.message(1, (named) =>
        named.string(1, name).message(2, (item) =>
          item.message(2, (apiKey) => {
            apiKey.string(1, text(scheme.type)).string(2, text(scheme.name)).string(3, text(scheme.in));
            apiKey.string(4, text(scheme.description));
          }),
        ),
      );
    }
  });
}

/** The Swagger document as a gnostic `openapi.v2.Document`. */
export function encodeOpenApiV2(document: SwaggerDocument): Uint8Array {
  const writer = new ProtoWriter();
  const info = record(document.info, "info");
  writer.string(1, text(document.swagger));
  writer.message(2, (nested) => nested.string(1, text(info.title)).string(2, text(info.version)));
  writer.message(8, (paths) => {
    for (const [path, item] of Object.entries(document.paths)) {
      paths.message(2, (named) => named.string(1, path).message(2, (nested) => writePathItem(nested, item)));
    }
  });
  writer.message(9, (definitions) => {
    for (const [name, schema] of Object.entries(document.definitions)) {
      definitions.message(1, (named) =>
        named.string(1, name).message(2, (nested) => writeSchema(nested, record(schema, name))),
      );
    }
  });
  writeSecurity(writer, document);
  return writer.finish();
}
