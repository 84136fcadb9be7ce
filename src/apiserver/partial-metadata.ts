/**
 * Objects as meta.k8s.io PartialObjectMetadata, for clients that asked for metadata only
 * (`as=PartialObjectMetadata` on a GET or a watch, `as=PartialObjectMetadataList` on a list, as
 * client-go's metadata client and informers do). Asking for a list's form on one object, or one
 * object's form on a list, is a 406 with kube-apiserver's words.
 */
import { ApiError } from "../api/errors.ts";
import type { KObject } from "../api/objects.ts";
import type { ResourceType } from "../api/resources.ts";
import type { MetadataRequest } from "./table-negotiation.ts";

function partialObjectMetadata(object: KObject, apiVersion: string): KObject {
  return { kind: "PartialObjectMetadata", apiVersion, metadata: object.metadata ?? {} };
}

function goTypeName(type: ResourceType, list: boolean): string {
  return `*${type.version}.${type.kind}${list ? "List" : ""}`;
}

/** One object (GET, watch event): only `as=PartialObjectMetadata` fits; a watch takes either form. */
export function metadataOfObject(
  object: KObject,
  request: MetadataRequest,
  type: ResourceType,
  watch = false,
): KObject {
  if (request.kind === "PartialObjectMetadataList" && !watch) {
    throw new ApiError(
      "NotAcceptable",
      `you requested PartialObjectMetadataList, but the requested object is not a list (${goTypeName(type, false)})`,
    );
  }
  return partialObjectMetadata(object, request.apiVersion);
}

export function metadataOfList(
  items: readonly KObject[],
  listMeta: Record<string, unknown>,
  request: MetadataRequest,
  type: ResourceType,
): Record<string, unknown> {
  if (request.kind === "PartialObjectMetadata") {
    throw new ApiError(
      "NotAcceptable",
      `you requested PartialObjectMetadata, but the requested object is a list (${goTypeName(type, true)})`,
    );
  }
  return {
    kind: "PartialObjectMetadataList",
    apiVersion: request.apiVersion,
    metadata: listMeta,
    items: items.map((item) => partialObjectMetadata(item, request.apiVersion)),
  };
}
