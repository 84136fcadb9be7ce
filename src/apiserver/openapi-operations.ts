/**
 * The operations this server serves for one group/version, as kube-apiserver names and describes
 * them in its OpenAPI documents: each path, its parameters, and each operation's verb, body,
 * responses and `x-kubernetes-action`. Both the v2 and v3 documents render this one model.
 */
import type { ResourceType } from "../api/resources.ts";
import { kindDefinitionName, operationDefinitions, shortGroupName } from "../api/schema/kind-definitions.ts";
import type { GroupVersionKind } from "../api/schema/openapi-types.ts";
import type { ParameterName } from "./openapi-parameters.ts";
import { resourcesOf } from "./openapi-schemas.ts";
import type { GroupVersionPath } from "./request-path.ts";
import { findExtraSubresource } from "./subresource-table.ts";

type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

export interface OperationSpec {
  readonly method: HttpMethod;
  readonly operationId: string;
  /** kube-apiserver's tag: `core_v1`, `storage_v1`. */
  readonly tag: string;
  readonly description: string;
  /** kube-apiserver's `x-kubernetes-action`: list, post, get, put, patch, delete. */
  readonly action: string;
  readonly kind: GroupVersionKind;
  readonly query: readonly ParameterName[];
  readonly body?: { readonly definition: string; readonly contentTypes: readonly string[] };
  /** Response code → definition name of the body. */
  readonly responses: Readonly<Record<string, string>>;
}

export interface PathSpec {
  readonly path: string;
  readonly parameters: readonly ParameterName[];
  readonly operations: readonly OperationSpec[];
}

/** The patch content types kube-apiserver accepts; kubectl apply looks for the strategic one. */
const patchContentTypes = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
] as const;

const writeQuery: readonly ParameterName[] = ["dryRun", "fieldManager", "fieldValidation"];
const listQuery: readonly ParameterName[] = [
  "allowWatchBookmarks",
  "continue",
  "fieldSelector",
  "labelSelector",
  "limit",
  "resourceVersion",
  "resourceVersionMatch",
  "sendInitialEvents",
  "timeoutSeconds",
  "watch",
];
const deleteQuery: readonly ParameterName[] = ["dryRun", "gracePeriodSeconds", "orphanDependents", "propagationPolicy"];

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `CoreV1`, `StorageV1`, `AppsV1`: the group/version part of kube-apiserver's operation ids. */
function operationGroup(type: ResourceType): string {
  return `${capitalized(shortGroupName(type))}${capitalized(type.version)}`;
}

function gvk(type: ResourceType, kind: string = type.kind): GroupVersionKind {
  return { group: type.group, version: type.version, kind };
}

/** The URL prefix of a type's collection, with `{namespace}` for namespaced kinds. */
function collectionPath(type: ResourceType): string {
  const root = type.group === "" ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  return type.namespaced ? `${root}/namespaces/{namespace}/${type.plural}` : `${root}/${type.plural}`;
}

class TypeOperations {
  private readonly idSuffix: string;
  private readonly definition: string;

  constructor(private readonly type: ResourceType) {
    this.idSuffix = `${operationGroup(type)}${type.namespaced ? "Namespaced" : ""}${type.kind}`;
    this.definition = kindDefinitionName(type);
  }

  private operation(
    method: HttpMethod,
    verb: string,
    action: string,
    description: string,
    rest: Pick<OperationSpec, "query" | "responses"> & Partial<Pick<OperationSpec, "body" | "kind">>,
    idSuffix = this.idSuffix,
  ): OperationSpec {
    const tag = `${shortGroupName(this.type)}_${this.type.version}`;
    return { method, operationId: `${verb}${idSuffix}`, tag, action, description, kind: gvk(this.type), ...rest };
  }

  private scopeParameters(): ParameterName[] {
    return this.type.namespaced ? ["namespace", "pretty"] : ["pretty"];
  }

  collection(): PathSpec {
    const { kind } = this.type;
    const own = this.definition;
    return {
      path: collectionPath(this.type),
      parameters: this.scopeParameters(),
      operations: [
        this.operation("get", "list", "list", `list or watch objects of kind ${kind}`, {
          query: listQuery,
          responses: { "200": kindDefinitionName(this.type, `${kind}List`) },
        }),
        this.operation("post", "create", "post", `create a ${kind}`, {
          query: writeQuery,
          body: { definition: own, contentTypes: ["*/*"] },
          responses: { "200": own, "201": own, "202": own },
        }),
      ],
    };
  }

  /** `/api/v1/pods`: a namespaced kind listed across all namespaces. */
  allNamespaces(): PathSpec | undefined {
    if (!this.type.namespaced) return undefined;
    const root = this.type.group === "" ? `/api/${this.type.version}` : `/apis/${this.type.group}/${this.type.version}`;
    const list = this.operation(
      "get",
      "list",
      "list",
      `list or watch objects of kind ${this.type.kind}`,
      { query: listQuery, responses: { "200": kindDefinitionName(this.type, `${this.type.kind}List`) } },
      `${operationGroup(this.type)}${this.type.kind}ForAllNamespaces`,
    );
    return { path: `${root}/${this.type.plural}`, parameters: ["pretty"], operations: [list] };
  }

  object(subresource?: "status"): PathSpec {
    const { kind } = this.type;
    const own = this.definition;
    const what = subresource === undefined ? `the specified ${kind}` : `status of the specified ${kind}`;
    const suffix = subresource === undefined ? this.idSuffix : `${this.idSuffix}Status`;
    const operations: OperationSpec[] = [
      this.operation("get", "read", "get", `read ${what}`, { query: [], responses: { "200": own } }, suffix),
      this.operation(
        "put",
        "replace",
        "put",
        `replace ${what}`,
        { query: writeQuery, body: { definition: own, contentTypes: ["*/*"] }, responses: { "200": own, "201": own } },
        suffix,
      ),
      this.operation(
        "patch",
        "patch",
        "patch",
        `partially update ${what}`,
        {
          query: [...writeQuery, "force"],
          body: { definition: operationDefinitions.patch, contentTypes: patchContentTypes },
          responses: { "200": own, "201": own },
        },
        suffix,
      ),
    ];
    if (subresource === undefined) {
      operations.push(
        this.operation("delete", "delete", "delete", `delete a ${kind}`, {
          query: deleteQuery,
          body: { definition: operationDefinitions.deleteOptions, contentTypes: ["*/*"] },
          responses: { "200": own, "202": own },
        }),
      );
    }
    const path = `${collectionPath(this.type)}/{name}${subresource === undefined ? "" : `/${subresource}`}`;
    return { path, parameters: ["name", ...this.scopeParameters()], operations };
  }

  binding(): PathSpec {
    const binding = operationDefinitions.binding;
    const create = this.operation(
      "post",
      "create",
      "post",
      "create binding of a Pod",
      {
        query: writeQuery,
        body: { definition: binding, contentTypes: ["*/*"] },
        responses: { "200": binding, "201": binding, "202": binding },
        kind: gvk(this.type, "Binding"),
      },
      `${this.idSuffix}Binding`,
    );
    return {
      path: `${collectionPath(this.type)}/{name}/binding`,
      parameters: ["name", ...this.scopeParameters()],
      operations: [create],
    };
  }

  /** `…/{name}/scale`: the autoscaling/v1 Scale of a replicated workload. */
  scale(): PathSpec {
    const scale = operationDefinitions.scale;
    const kind = { group: "autoscaling", version: "v1", kind: "Scale" };
    const suffix = `${this.idSuffix}Scale`;
    const what = `scale of the specified ${this.type.kind}`;
    const operations = [
      this.operation("get", "read", "get", `read ${what}`, { query: [], responses: { "200": scale }, kind }, suffix),
      this.operation(
        "put",
        "replace",
        "put",
        `replace ${what}`,
        {
          query: writeQuery,
          body: { definition: scale, contentTypes: ["*/*"] },
          responses: { "200": scale, "201": scale },
          kind,
        },
        suffix,
      ),
      this.operation(
        "patch",
        "patch",
        "patch",
        `partially update ${what}`,
        {
          query: [...writeQuery, "force"],
          body: { definition: operationDefinitions.patch, contentTypes: patchContentTypes },
          responses: { "200": scale, "201": scale },
          kind,
        },
        suffix,
      ),
    ];
    return {
      path: `${collectionPath(this.type)}/{name}/scale`,
      parameters: ["name", ...this.scopeParameters()],
      operations,
    };
  }

  all(): PathSpec[] {
    const paths = [this.collection(), this.object()];
    const acrossNamespaces = this.allNamespaces();
    if (acrossNamespaces !== undefined) paths.push(acrossNamespaces);
    if (this.type.hasStatus) paths.push(this.object("status"));
    if (this.type.kind === "Pod") paths.push(this.binding());
    if (findExtraSubresource(this.type, "scale") !== undefined) paths.push(this.scale());
    return paths;
  }
}

/** Every path of one group/version, sorted as kube-apiserver sorts them. */
export function pathsFor(gv: GroupVersionPath): PathSpec[] {
  const paths = resourcesOf(gv).flatMap((type) => new TypeOperations(type).all());
  return paths.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
