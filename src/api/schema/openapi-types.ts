/**
 * The shape of the committed definitions file: OpenAPI v2 (Swagger) schema objects with
 * Kubernetes' `x-kubernetes-*` extensions, the form kube-apiserver serves at /openapi/v2.
 */

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface OpenApiSchema {
  readonly description?: string;
  readonly type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  readonly format?: string;
  /** `#/definitions/<name>`. */
  readonly $ref?: string;
  readonly items?: OpenApiSchema;
  readonly additionalProperties?: OpenApiSchema;
  readonly properties?: Readonly<Record<string, OpenApiSchema>>;
  readonly required?: readonly string[];
  readonly "x-kubernetes-patch-strategy"?: string;
  readonly "x-kubernetes-patch-merge-key"?: string;
  readonly "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  readonly "x-kubernetes-list-map-keys"?: readonly string[];
  readonly "x-kubernetes-map-type"?: "atomic" | "granular";
}

export interface OpenApiDefinition extends OpenApiSchema {
  readonly "x-kubernetes-group-version-kind"?: readonly GroupVersionKind[];
}

export type OpenApiDefinitions = Readonly<Record<string, OpenApiDefinition>>;

export const definitionRefPrefix = "#/definitions/";

/** The definition name a `$ref` points at. */
export function refName(ref: string): string {
  if (!ref.startsWith(definitionRefPrefix)) throw new Error(`$ref ${ref} does not point into #/definitions/`);
  return ref.slice(definitionRefPrefix.length);
}
